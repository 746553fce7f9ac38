// Package probe is what an untrusted client could do to a Buildbarn
// frontend without Bazel: upload an action of its own, write a forged
// result of it into the action cache, read the cache, have the cluster
// execute the action. The command acwrite (its package doc is the manual)
// parses the flags into Options and calls Run, which prints one line per
// operation: the operation, the client's certificate name, and the
// server's answer or what it returned.
package probe

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	remoteexecution "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/genproto/googleapis/longrunning"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Options are acwrite's command line.
type Options struct {
	Endpoint          string   // the frontend, host:port (TLS)
	CAFile            string   // the CA of the server's certificate (PEM)
	CertFile, KeyFile string   // the client certificate and its key; "": none
	Instance          string   // the REAPI instance name
	Nonce             string   // makes the action one of its own
	Ops               []string // write, read or execute, in order
}

// Ops are the operations Run knows.
var Ops = []string{"write", "read", "execute"}

// ErrRefused is Run's error when the server refused an operation, which
// its line says.
var ErrRefused = errors.New("an operation was refused")

// Run connects as o says and does each of o.Ops on the action of
// o.Nonce, printing a line for the action and one for each operation on
// w. An operation the server refuses is printed, and makes the error
// ErrRefused; any other error is a failure to connect or to make the
// action.
func Run(o Options, w io.Writer) error {
	c, err := dial(o.Endpoint, o.CAFile, o.CertFile, o.KeyFile)
	if err != nil {
		return err
	}
	defer c.conn.Close()
	c.instance = o.Instance
	a, err := newAction(o.Nonce)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "action %s/%d: /bin/sh -c 'echo acwrite %s', instance %q\n",
		a.digest.Hash, a.digest.SizeBytes, o.Nonce, o.Instance)
	failed := false
	for _, op := range o.Ops {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		var answer string
		switch op {
		case "write":
			answer, err = c.write(ctx, a)
		case "read":
			answer, err = c.read(ctx, a)
		case "execute":
			answer, err = c.execute(ctx, a)
		default:
			err = fmt.Errorf("unknown operation %q", op)
		}
		cancel()
		if err != nil {
			failed = true
			answer = "refused: " + describe(err)
		}
		fmt.Fprintf(w, "%s as %s: %s\n", op, c.identity, answer)
	}
	if failed {
		return ErrRefused
	}
	return nil
}

// describe is a gRPC error as the server gave it: code and message.
func describe(err error) string {
	if s, ok := status.FromError(err); ok {
		return fmt.Sprintf("%s: %s", s.Code(), s.Message())
	}
	return err.Error()
}

type client struct {
	conn     *grpc.ClientConn
	identity string // the client certificate's first DNS name, or "no certificate"
	instance string
}

func dial(endpoint, caFile, certFile, keyFile string) (*client, error) {
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("%s: no PEM certificate", caFile)
	}
	config := &tls.Config{RootCAs: roots}
	identity := "no certificate"
	if certFile != "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, err
		}
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			return nil, err
		}
		identity = leaf.Subject.CommonName
		if len(leaf.DNSNames) > 0 {
			identity = leaf.DNSNames[0]
		}
		config.Certificates = []tls.Certificate{pair}
	}
	conn, err := grpc.Dial(endpoint, grpc.WithTransportCredentials(credentials.NewTLS(config)))
	if err != nil {
		return nil, err
	}
	return &client{conn: conn, identity: identity}, nil
}

// action is an Action with what it refers to, serialized.
type action struct {
	digest *remoteexecution.Digest
	blobs  []*remoteexecution.BatchUpdateBlobsRequest_Request // the Action, its Command, the input root
}

func digestOf(data []byte) *remoteexecution.Digest {
	sum := sha256.Sum256(data)
	return &remoteexecution.Digest{Hash: hex.EncodeToString(sum[:]), SizeBytes: int64(len(data))}
}

func newAction(nonce string) (*action, error) {
	// The platform the cluster's worker offers (config/common.libsonnet),
	// sorted by name as REAPI requires.
	platform := &remoteexecution.Platform{Properties: []*remoteexecution.Platform_Property{
		{Name: "OSFamily", Value: "Linux"},
		{Name: "container-image", Value: "docker://native"},
	}}
	marshal := proto.MarshalOptions{Deterministic: true}
	command, err := marshal.Marshal(&remoteexecution.Command{
		Arguments: []string{"/bin/sh", "-c", "echo acwrite " + nonce},
		Platform:  platform,
	})
	if err != nil {
		return nil, err
	}
	root, err := marshal.Marshal(&remoteexecution.Directory{})
	if err != nil {
		return nil, err
	}
	act, err := marshal.Marshal(&remoteexecution.Action{
		CommandDigest:   digestOf(command),
		InputRootDigest: digestOf(root),
		Platform:        platform,
	})
	if err != nil {
		return nil, err
	}
	a := &action{digest: digestOf(act)}
	for _, blob := range [][]byte{act, command, root} {
		a.blobs = append(a.blobs, &remoteexecution.BatchUpdateBlobsRequest_Request{Digest: digestOf(blob), Data: blob})
	}
	return a, nil
}

// upload puts the action's blobs into the CAS, which any authenticated
// client may write: a blob is named by its hash, so it cannot lie.
func (c *client) upload(ctx context.Context, a *action) error {
	resp, err := remoteexecution.NewContentAddressableStorageClient(c.conn).BatchUpdateBlobs(ctx,
		&remoteexecution.BatchUpdateBlobsRequest{InstanceName: c.instance, Requests: a.blobs})
	if err != nil {
		return err
	}
	for _, r := range resp.Responses {
		if s := status.FromProto(r.Status); s.Err() != nil {
			return fmt.Errorf("uploading %s to the CAS: %w", r.Digest.Hash, s.Err())
		}
	}
	return nil
}

// write stores a forged result: success, with output the command never
// printed.
func (c *client) write(ctx context.Context, a *action) (string, error) {
	if err := c.upload(ctx, a); err != nil {
		return "", err
	}
	forged := []byte("forged by " + c.identity + "\n")
	_, err := remoteexecution.NewActionCacheClient(c.conn).UpdateActionResult(ctx, &remoteexecution.UpdateActionResultRequest{
		InstanceName: c.instance,
		ActionDigest: a.digest,
		ActionResult: &remoteexecution.ActionResult{ExitCode: 0, StdoutRaw: forged},
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("accepted: the action cache now says it printed %q", forged), nil
}

func (c *client) read(ctx context.Context, a *action) (string, error) {
	result, err := remoteexecution.NewActionCacheClient(c.conn).GetActionResult(ctx, &remoteexecution.GetActionResultRequest{
		InstanceName: c.instance,
		ActionDigest: a.digest,
		InlineStdout: true,
	})
	if err != nil {
		return "", err
	}
	return "found: " + c.describeResult(ctx, result), nil
}

func (c *client) execute(ctx context.Context, a *action) (string, error) {
	if err := c.upload(ctx, a); err != nil {
		return "", err
	}
	stream, err := remoteexecution.NewExecutionClient(c.conn).Execute(ctx, &remoteexecution.ExecuteRequest{
		InstanceName: c.instance,
		ActionDigest: a.digest,
	})
	if err != nil {
		return "", err
	}
	var last *longrunning.Operation
	for {
		op, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		last = op
		if op.Done {
			break
		}
	}
	if last == nil || !last.Done {
		return "", errors.New("the execution stream ended before the operation was done")
	}
	if e := last.GetError(); e != nil {
		return "", status.FromProto(e).Err()
	}
	var resp remoteexecution.ExecuteResponse
	if err := last.GetResponse().UnmarshalTo(&resp); err != nil {
		return "", err
	}
	if s := status.FromProto(resp.Status); s.Err() != nil {
		return "", s.Err()
	}
	how := "executed by a worker"
	if resp.CachedResult {
		how = "served from the action cache"
	}
	return how + ": " + c.describeResult(ctx, resp.Result), nil
}

// describeResult is an ActionResult's exit code and standard output,
// read from the CAS when not inline.
func (c *client) describeResult(ctx context.Context, r *remoteexecution.ActionResult) string {
	stdout := r.StdoutRaw
	if len(stdout) == 0 && r.StdoutDigest != nil && r.StdoutDigest.SizeBytes > 0 {
		resp, err := remoteexecution.NewContentAddressableStorageClient(c.conn).BatchReadBlobs(ctx,
			&remoteexecution.BatchReadBlobsRequest{InstanceName: c.instance, Digests: []*remoteexecution.Digest{r.StdoutDigest}})
		if err != nil || len(resp.Responses) != 1 {
			return fmt.Sprintf("exit code %d, stdout %s unreadable (%v)", r.ExitCode, r.StdoutDigest.Hash, err)
		}
		stdout = resp.Responses[0].Data
	}
	worker := ""
	if m := r.ExecutionMetadata; m != nil && m.Worker != "" {
		worker = ", worker " + strings.TrimSpace(m.Worker)
	}
	return fmt.Sprintf("exit code %d, stdout %q%s", r.ExitCode, stdout, worker)
}
