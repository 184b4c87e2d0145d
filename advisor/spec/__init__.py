"""Workload specs: a prompt workload described before there are logs, and traffic made from it."""
