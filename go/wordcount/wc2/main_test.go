package main

import (
	"testing"

	"havlak-lab/go/wordcount/wctest"
)

func TestAgainstWC(t *testing.T) { wctest.CheckFiles(t, count) }

func TestCommand(t *testing.T) { wctest.CheckCommand(t, run) }
