"""The browser end-to-end tests: the built web app (web/dist) driven in Debian's Chromium."""
