#!/usr/bin/env bash
# wc -w, the reference the word-count stages race, in the C locale they
# match (see go/wordcount/README.md).
LC_ALL=C exec wc -w "$@"
