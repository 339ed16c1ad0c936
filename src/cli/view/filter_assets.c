/*
 * filter_assets.c - embeds src/cli/view/filter.js and filter.css, the
 * event filters both pages use (filter_assets.h).
 *
 * Design.  One copy of the filters' code for two pages: -display writes
 * one self-contained file (the script and style are copied into it),
 * while -live's page loads them from its server.  The assembler's .incbin
 * puts the files in at build time, as display.c and live.c do with their
 * pages (the Makefile makes this object depend on them), so neither
 * command needs a file at run time.
 */
#include "filter_assets.h"

/* Paths relative to the top of the tree, where make runs the compiler. */
__asm__(".pushsection .rodata\n"
        ".global top_filter_js\n"
        ".type top_filter_js, @object\n"
        "top_filter_js:\n"
        ".incbin \"src/cli/view/filter.js\"\n"
        ".byte 0\n"
        ".size top_filter_js, . - top_filter_js\n"
        ".global top_filter_css\n"
        ".type top_filter_css, @object\n"
        "top_filter_css:\n"
        ".incbin \"src/cli/view/filter.css\"\n"
        ".byte 0\n"
        ".size top_filter_css, . - top_filter_css\n"
        ".popsection\n");
