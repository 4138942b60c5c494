"""The plan viewer's files, served by `app.api.routes.viewer`: the page (`index.html`), its script
and style (`assets/`, plain JavaScript and CSS with no build step, so the installed package is all
the page needs), and one small example transcript per format (`examples/`).

A package, so the files travel with `pip install .` as package data.
"""
