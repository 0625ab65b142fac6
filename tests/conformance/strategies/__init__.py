"""One strategy module per registered ruleset, named after it (``extended.py`` for ``extended``).

See ``tests/conformance/kit.py`` for what a strategy module defines.
"""
