"""Command modules; importing one registers its commands on ``advisor.cli.app``.

``advisor.cli`` imports only the module of the command being run, or all of them, in
the order of `advisor --help` (the data flow, lint to report), to list them.
"""
