"""Publication: the documentation's pages and figures written again from the published stores.

``fsmarena publish`` reads every store of ``published/`` (:mod:`fsmarena.studies.store`), writes
each study's report through the one report writer of the studies layer and fills the values and
blocks the pages quote (:mod:`fsmarena.publish.pages`); ``--figures`` draws the stored runs'
figures into ``docs/results/<study>/`` (:mod:`fsmarena.publish.figures`); ``--check`` says, without
writing, whether every page and figure still matches its store.  This package sits above the
studies: they know nothing of the pages.
"""
