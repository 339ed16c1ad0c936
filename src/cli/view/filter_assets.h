/*
 * filter_assets.h - the event filters' script and style (filter.js,
 * filter.css), shared by -display's page (display.c copies them into the
 * file it writes) and -live's (live.c serves them at /filter.js and
 * /filter.css).  NUL-terminated; embedded by filter_assets.c.
 */
#ifndef TOP_FILTER_ASSETS_H
#define TOP_FILTER_ASSETS_H

extern const char top_filter_js[];
extern const char top_filter_css[];

#endif
