package linecounts

import (
	"bytes"
	"testing"
)

// FuzzRead: any bytes are a file that Read takes or an error, never a
// panic; what it takes has one spelling, so Marshal gives back the same
// bytes (the format's determinism, which a cached count action needs).
func FuzzRead(f *testing.F) {
	f.Add([]byte("havlak-lab cachegrind line counts 1\nevents\tIr\ntotal\t15\ngo/p/a.go\t3\tmain.f\t10\ngoroot:runtime/proc.go\t250\truntime.main\t5\n"))
	f.Add([]byte("havlak-lab cachegrind line counts 1\nevents\tIr\tI1mr\tILmr\tDr\tD1mr\tDLmr\tDw\tD1mw\tDLmw\n" +
		"total\t4\t1\t1\t0\t0\t0\t3\t0\t0\ncc/p.cc\t3\tmain\t4\t1\t1\t0\t0\t0\t3\t0\t0\n"))
	f.Add([]byte("havlak-lab cachegrind line counts 1\nevents\tIr\ntotal\t5\ntoolchain:???\t0\t???\t5\n"))
	f.Add([]byte("havlak-lab cachegrind line counts 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data), "fuzz.tsv")
		if err != nil {
			return
		}
		again, err := file.Marshal()
		if err != nil {
			t.Fatalf("Read took a file Marshal refuses: %v", err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("Read took\n%q\nwhich Marshal writes as\n%q", data, again)
		}
	})
}
