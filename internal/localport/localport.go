// Package localport finds a TCP port on 127.0.0.1 for a server the lab
// starts itself (a test's PostgreSQL or chromedriver, a Buildbarn cluster).
package localport

import "net"

// Free is a TCP port on 127.0.0.1 that nothing listened on a moment ago:
// the kernel's choice for a listener, closed again. Another process may
// take it before the caller does; a server that fails to listen on it
// says so.
func Free() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
