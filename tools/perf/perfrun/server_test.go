package perfrun

import (
	"testing"

	"havlak-lab/tools/result"
)

func TestLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:80": true, "10.0.0.1:80": false, "example.com:80": false, "0.0.0.0:80": false, "nonsense": false,
	} {
		if err := loopback(addr); (err == nil) != ok {
			t.Errorf("loopback(%q) = %v", addr, err)
		}
	}
}

func TestClassifyServerFiles(t *testing.T) {
	for name, want := range map[string]result.File{
		"mutex.pb.gz":       {Role: result.RoleProfile, Profile: "mutex"},
		"block.top.txt":     {Role: result.RoleView, Profile: "block"},
		"goroutine.pb.gz":   {Role: result.RoleProfile, Profile: "goroutine"},
		"allocs.pb.gz":      {Role: result.RoleProfile, Profile: "allocs"},
		"latency.hist.txt":  {Role: result.RoleData},
		"server.output.txt": {Role: result.RoleOutput},
		"trace.out":         {Role: result.RoleTrace},
	} {
		want.Name = name
		if got := classify(name, map[string]bool{name: true}); got != want {
			t.Errorf("classify(%q) = %+v, want %+v", name, got, want)
		}
	}
}
