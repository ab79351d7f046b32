"""One module per page of the planning app; each exposes ``PAGE``, a ``planner.web.page.Page``."""
