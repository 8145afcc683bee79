"""The elot REPL: an interactive session over one scenario and its BToM inference.

``elot.repl.session`` holds the state, ``elot.repl.commands`` the ``:commands``, ``elot.repl.render``
the rich renderables (map, bar charts, score tables, sparklines, errors),
``elot.repl.complete`` tab completion and ``elot.repl.app`` the loop.
"""
