"""One module per page of the planning app; each exposes ``PAGE``, a ``planner.web.page.Page``.

:data:`PAGES` is the registry the server serves, in the order of its navigation.
"""

from __future__ import annotations

from planner.web.page import Page
from planner.web.pages import agree, alt_test, budget, designs, pilot, plan, schedule, several

PAGES: tuple[Page, ...] = (
    plan.PAGE,
    budget.PAGE,
    designs.PAGE,
    several.PAGE,
    pilot.PAGE,
    alt_test.PAGE,
    agree.PAGE,
    schedule.PAGE,
)
