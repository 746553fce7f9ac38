package main

import (
	"bytes"
	"os"
	"testing"

	"havlak-lab/go/wordcount/textgen"
	"havlak-lab/go/wordcount/wctest"
)

func TestAgainstWC(t *testing.T) {
	buf := make([]byte, bufSize)
	wctest.CheckFiles(t, func(f *os.File) (int64, error) { return count(f, buf) })
}

func TestCommand(t *testing.T) { wctest.CheckCommand(t, run) }

// TestBufferSizes counts every case through buffers of many sizes, so that
// words and whitespace runs are cut at every possible place, and compares
// with the count through the real buffer.
func TestBufferSizes(t *testing.T) {
	if bufSize != wctest.Block {
		t.Errorf("bufSize %d is not wctest.Block %d, which the straddle case is built around", bufSize, wctest.Block)
	}
	big := make([]byte, bufSize)
	for _, c := range wctest.Cases() {
		want, err := count(bytes.NewReader(c.Data), big)
		if err != nil {
			t.Fatal(err)
		}
		data := c.Data
		if len(data) > 64<<10 {
			data = data[:64<<10] // enough, and small buffers are slow
			if want, err = count(bytes.NewReader(data), big); err != nil {
				t.Fatal(err)
			}
		}
		for _, size := range []int{1, 2, 3, 5, 7, 64, 4095, 4096, 4097} {
			got, err := count(bytes.NewReader(data), make([]byte, size))
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s through a %d-byte buffer: %d words, want %d", c.Name, size, got, want)
			}
		}
	}
}

// TestNoAllocs pins stage 3's point: counting allocates nothing, however
// large the input.
func TestNoAllocs(t *testing.T) {
	buf := make([]byte, bufSize)
	for _, size := range []int64{0, 1000, 1 << 20} {
		data := textgen.Bytes(textgen.Options{Size: size, Seed: 5})
		r := bytes.NewReader(data)
		allocs := testing.AllocsPerRun(10, func() {
			r.Reset(data)
			if _, err := count(r, buf); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("counting %d bytes: %v allocations, want 0", size, allocs)
		}
	}
}
