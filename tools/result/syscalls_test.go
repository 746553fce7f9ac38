package result

import "testing"

func TestParseProcIO(t *testing.T) {
	s, err := ParseProcIO([]byte("rchar: 1948\nwchar: 12\nsyscr: 7\nsyscw: 3\nread_bytes: 0\nwrite_bytes: 0\ncancelled_write_bytes: 0\n"))
	if err != nil || *s != (Syscalls{Read: 7, Write: 3}) {
		t.Errorf("ParseProcIO = %+v, %v; want 7 reads, 3 writes", s, err)
	}
	for _, bad := range []string{"", "syscr: 7\n", "syscr: x\nsyscw: 1\n", "syscr: -1\nsyscw: 1\n"} {
		if _, err := ParseProcIO([]byte(bad)); err == nil {
			t.Errorf("ParseProcIO(%q) = nil error, want one", bad)
		}
	}
}
