"""The planning app: the library in a browser (``planner app``, the ``[app]`` extra).

``page`` defines what a page is; ``pages`` holds one module per page; ``server`` serves them.
"""
