package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Each nonce names an action of its own, the same every time: its blobs
// are what the action's digest and its references name.
func TestNewAction(t *testing.T) {
	a, err := newAction("n1")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := newAction("n1")
	other, _ := newAction("n2")
	if a.digest.Hash != again.digest.Hash || a.digest.Hash == other.digest.Hash {
		t.Errorf("digests %s, %s (same nonce), %s (another): want one per nonce", a.digest.Hash, again.digest.Hash, other.digest.Hash)
	}
	if len(a.blobs) != 3 {
		t.Fatalf("%d blobs, want the action, its command and the input root", len(a.blobs))
	}
	for _, b := range a.blobs {
		sum := sha256.Sum256(b.Data)
		if hex.EncodeToString(sum[:]) != b.Digest.Hash || int64(len(b.Data)) != b.Digest.SizeBytes {
			t.Errorf("blob named %s/%d is not what it holds", b.Digest.Hash, b.Digest.SizeBytes)
		}
	}
	if a.blobs[0].Digest.Hash != a.digest.Hash || !strings.Contains(string(a.blobs[1].Data), "echo acwrite n1") {
		t.Errorf("the first blob is not the action, or the second not its command %q", a.blobs[1].Data)
	}
}

// A server's refusal is told by its code and message.
func TestDescribe(t *testing.T) {
	if got := describe(status.Error(codes.PermissionDenied, "no writes")); got != "PermissionDenied: no writes" {
		t.Errorf("describe = %q", got)
	}
	if got := describe(errors.New("plain")); got != "plain" {
		t.Errorf("describe = %q", got)
	}
}

// A CA file that holds no certificate fails before any connection.
func TestRunWithoutCA(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, []byte("not PEM"), 0o644)
	err := Run(Options{Endpoint: "localhost:1", CAFile: ca, Nonce: "n", Ops: []string{"read"}}, &strings.Builder{})
	if err == nil || errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("Run: %v, want the CA file refused", err)
	}
}
