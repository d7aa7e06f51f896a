# --html FILE (user/report/html.c): tests/integration/test_html_report.c
# loads the page in headless Chromium, offline, and takes the screenshot
# shown in README and docs/REFERENCE.md (docs/html-report.png).

DEB_DEPS += chromium
