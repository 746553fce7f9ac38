package localport

import (
	"net"
	"strconv"
	"testing"
)

func TestFreeCanBeListenedOn(t *testing.T) {
	port, err := Free()
	if err != nil || port <= 0 || port > 65535 {
		t.Fatalf("Free() = %d, %v", port, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("listening on the free port %d: %v", port, err)
	}
	l.Close()
}
