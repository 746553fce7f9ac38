package main

import (
	"testing"

	"havlak-lab/go/wordcount/wctest"
)

func TestAgainstWC(t *testing.T) { wctest.CheckFiles(t, countFile) }

func TestCommand(t *testing.T) { wctest.CheckCommand(t, run) }
