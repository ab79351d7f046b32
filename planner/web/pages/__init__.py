"""One module per page of the planning app; each exposes ``PAGE``, a ``planner.web.page.Page``."""

from planner.web.pages import agree, alt_test, designs, pilot, schedule, several  # noqa: E402

PAGES = (designs.PAGE, several.PAGE, pilot.PAGE, alt_test.PAGE, agree.PAGE, schedule.PAGE)
