"""Draw docs/images/app-plan.png: the Plan page of ``planner app`` in headless Chromium.

Run from the repository after ``pip install '.[test]'`` with Debian's ``chromium`` and
``chromium-driver`` installed::

    python docs/images/app_screenshot.py

The page is ``/plan?prevalence=0.08&width=0.08&hourly_rate=30`` once its answer and figures
are in (its headline is the 1,280 items ``plan --prevalence 0.08 --width 0.08`` prints).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from planner.web.server import BackgroundServer

QUERY = "plan?prevalence=0.08&width=0.08&hourly_rate=30"
OUT = Path(__file__).with_name("app-plan.png")


def main() -> None:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1400",
                     f"--user-data-dir={tempfile.mkdtemp(prefix='planner-shot-')}"):  # fmt: skip
        options.add_argument(argument)
    service = Service(executable_path="/usr/bin/chromedriver")
    with BackgroundServer() as server:
        driver = webdriver.Chrome(service=service, options=options)
        try:
            driver.get(server.url + QUERY)
            for _ in range(600):  # the answer, then its figures (at most a minute)
                result = driver.find_element(By.CSS_SELECTOR, '[data-testid="result"]')
                if result.get_attribute("data-state") == "done":
                    break
                time.sleep(0.1)
            items = driver.find_element(By.CSS_SELECTOR, '[data-testid="items"]').text
            if items != "1,280":
                raise SystemExit(f"the page shows {items!r} items, not 1,280")
            driver.save_screenshot(str(OUT))
        finally:
            driver.quit()
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
