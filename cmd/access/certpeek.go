package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/url"
	"time"
)

// peekCertificate connects to the console of u (port 443 when u names
// none) and returns the chain it presents, leaf first, without checking
// it, and the host:port it dialled. It is the one place the command reads
// a certificate outside a client: doctor shows and checks it, login
// prints the fingerprint of a certificate the system does not trust.
func peekCertificate(ctx context.Context, u *url.URL) ([]*x509.Certificate, string, error) {
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "443")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, ServerName: u.Hostname()}} //nolint:gosec // only to read the certificate
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, host, err
	}
	defer nc.Close()
	certs := nc.(*tls.Conn).ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return nil, host, errors.New("the server presented no certificate")
	}
	return certs, host, nil
}
