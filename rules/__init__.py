"""advisor's lint rules (installed as ``advisor.rules``)."""
