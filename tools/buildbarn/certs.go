package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// The identities of clients, named by the DNS name in their TLS client
// certificate (the only names Buildbarn's tlsClientCertificate policy
// shows to its JMESPath expressions). .invalid: never a real host.
const (
	// trustedClient may write the action cache (CI's trusted builds).
	trustedClient = "trusted.client.havlak-lab.invalid"
	// untrustedClient is any other client the CA vouches for: it may
	// read the cache and execute, not write action results.
	untrustedClient = "untrusted.client.havlak-lab.invalid"
	// clusterClient is the cluster's own programs on its internal
	// listeners: the worker writes the results of the actions it ran.
	clusterClient = "cluster.havlak-lab.invalid"
)

// validity is how long the certificates made here last: long enough for
// a test or a session, short enough not to be kept.
const validity = 30 * 24 * time.Hour

// writeCerts writes to dir a certificate authority (ca.pem), a server
// certificate it signed for 127.0.0.1 and localhost (server.pem, with its
// key in server.key), and two client certificates (trusted.pem and
// untrusted.pem, keys in .key files): what a test needs to serve grpcs://,
// have Bazel trust it (--tls_certificate=ca.pem), and authenticate as
// either client (--tls_client_certificate, --tls_client_key; start
// -client-ca ca.pem).
func writeCerts(dir string, now time.Time) error {
	ca, err := newCA("havlak-lab test CA", now)
	if err != nil {
		return err
	}
	if err := ca.writeCA(dir); err != nil {
		return err
	}
	for _, c := range []struct {
		file string
		leaf leafSpec
	}{
		{"server", leafSpec{name: "127.0.0.1", dnsNames: []string{"localhost"}, server: true}},
		{"trusted", leafSpec{name: trustedClient, dnsNames: []string{trustedClient}, client: true}},
		{"untrusted", leafSpec{name: untrustedClient, dnsNames: []string{untrustedClient}, client: true}},
	} {
		if err := ca.writeLeaf(dir, c.file, c.leaf, now); err != nil {
			return err
		}
	}
	return nil
}

// writeInternalCerts writes to dir what the cluster's programs use among
// themselves when clients must authenticate: a CA of their own (ca.pem),
// which no client certificate comes from, and one certificate for both
// ends of every internal connection (cluster.pem, cluster.key: served on
// 127.0.0.1, presented as the client clusterClient). Made at each start,
// kept in the state directory only.
func writeInternalCerts(dir string, now time.Time) error {
	ca, err := newCA("havlak-lab cluster CA", now)
	if err != nil {
		return err
	}
	if err := ca.writeCA(dir); err != nil {
		return err
	}
	return ca.writeLeaf(dir, "cluster", leafSpec{name: clusterClient,
		dnsNames: []string{clusterClient}, server: true, client: true}, now)
}

// authority is a CA: its certificate and key.
type authority struct {
	cert   *x509.Certificate
	der    []byte
	key    crypto.Signer
	serial int64
}

func newCA(name string, now time.Time) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, der: der, key: key, serial: 1}, nil
}

func (ca *authority) writeCA(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.der, 0o644)
}

// leafSpec says what a certificate is for.
type leafSpec struct {
	name           string // the subject's common name
	dnsNames       []string
	server, client bool // its extended key usages
}

// writeLeaf writes dir/file.pem, signed by ca, and its key dir/file.key
// (PKCS #8, which Bazel's netty reads; readable by the owner only).
func (ca *authority) writeLeaf(dir, file string, spec leafSpec, now time.Time) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	ca.serial++
	template := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial),
		Subject:      pkix.Name{CommonName: spec.name},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		DNSNames:     spec.dnsNames,
	}
	if spec.server {
		template.ExtKeyUsage = append(template.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
		template.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	if spec.client {
		template.ExtKeyUsage = append(template.ExtKeyUsage, x509.ExtKeyUsageClientAuth)
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	if err := writePEM(filepath.Join(dir, file+".pem"), "CERTIFICATE", der, 0o644); err != nil {
		return err
	}
	return writePEM(filepath.Join(dir, file+".key"), "PRIVATE KEY", keyDER, 0o600)
}

func writePEM(path, kind string, der []byte, mode os.FileMode) error {
	// A key file left over from an earlier run keeps its old mode through
	// WriteFile: start afresh.
	os.Remove(path)
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode)
}

// parseCertificates returns the certificates of a PEM file's data; it is
// an error if there are none (a key file given by mistake, say).
func parseCertificates(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, err
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM certificate in it")
	}
	return certs, nil
}
