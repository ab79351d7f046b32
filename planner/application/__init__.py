"""The application layer: a request resolved and run.

A command's values come from three places, in increasing precedence: the documented
defaults (the settings objects' fields), a scenario file, and the command line (or the
planning app's page). The modules here merge them into one model and one settings object,
run the library's job (a plan, a schedule, a design comparison) and hand the result to
``output``, which renders and writes it. The CLI and the web pages call these modules; the
library below never does.
"""
