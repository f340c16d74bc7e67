"""Draw the app's PNG icons (public/icons/*.png) from their SVGs with Debian's Chromium.

Run from the repository root after changing icon.svg or maskable.svg:
    .venv/bin/python web/scripts/make_icons.py
"""
from pathlib import Path
from playwright.sync_api import sync_playwright
d = Path(__file__).resolve().parents[1] / "public" / "icons"
jobs = [("icon.svg", "icon-192.png", 192), ("icon.svg", "icon-512.png", 512),
        ("maskable.svg", "maskable-512.png", 512), ("maskable.svg", "apple-touch-icon.png", 180)]
with sync_playwright() as pw:
    b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
    for src, out, size in jobs:
        p = b.new_page(viewport={"width": size, "height": size})
        svg = (d / src).read_text()
        sized = svg.replace("<svg ", '<svg width="%d" height="%d" ' % (size, size), 1)
        p.set_content("<html><body style='margin:0;background:transparent'>" + sized + "</body></html>")
        p.screenshot(path=str(d / out), omit_background=True)
    b.close()
