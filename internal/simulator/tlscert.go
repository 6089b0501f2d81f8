package simulator

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"net"
	"os"
	"slices"
	"time"

	"github.com/access-dev/access/internal/atomicfile"
)

// certValidity is how long a self-signed certificate is valid, the most
// browsers accept of a leaf certificate; certRenewal is how long before
// its end a kept one is replaced.
const (
	certValidity = 397 * 24 * time.Hour
	certRenewal  = 30 * 24 * time.Hour
)

// selfSigned makes a leaf certificate for the simulator that names
// localhost, the loopback addresses and host (the --addr host, when it is
// an address or a name), valid from an hour ago for certValidity. It is
// no CA: it can sign nothing else.
func selfSigned(host string) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "access fake", Organization: []string{"access fake (simulated UniFi Access console)"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(certValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  false,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if host != "" {
		if ip := net.ParseIP(host); ip != nil {
			if !ip.IsUnspecified() && !slices.ContainsFunc(tmpl.IPAddresses, ip.Equal) {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			}
		} else if host != "localhost" {
			tmpl.DNSNames = append(tmpl.DNSNames, host)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// keptCertPath is the file beside a state file that keeps the
// simulator's self-signed certificate and its key.
func keptCertPath(statePath string) string { return statePath + ".tls.pem" }

// keptCert returns the self-signed certificate kept beside the state
// file (keptCertPath), so that a restart presents the same one and pinned
// clients keep trusting it; or a new one (write reports true: the caller
// writes it with writeKeptCert once the start is checked) when there is
// none yet, or the kept one expires within certRenewal or does not name
// host. A file that cannot be read as a certificate and its key is a
// usage error: it is not replaced.
func keptCert(statePath, host string) (cert tls.Certificate, write bool, err error) {
	path := keptCertPath(statePath)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		cert, err = selfSigned(host)
		return cert, err == nil, err
	}
	if err != nil {
		return cert, false, usageErrorf("certificate %s (kept beside the state file): cannot read it: %v", path, errors.Unwrap(err))
	}
	cert, err = tls.X509KeyPair(b, b)
	if err == nil && cert.Leaf == nil {
		cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0])
	}
	if err != nil {
		return cert, false, usageErrorf("certificate %s (kept beside the state file): %v; remove it to make a new one", path, err)
	}
	name := host
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		name = "127.0.0.1"
	}
	if time.Until(cert.Leaf.NotAfter) < certRenewal || cert.Leaf.VerifyHostname(name) != nil {
		cert, err = selfSigned(host)
		return cert, err == nil, err
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600) // the key is for this process alone
	}
	return cert, false, nil
}

// writeKeptCert writes the certificate and its private key to the file
// beside the state file, mode 0600, atomically and durably (atomicfile: a
// temporary file renamed over it, then the directory synced, so that a
// crash after the start cannot lose it and change the fingerprint).
func writeKeptCert(statePath string, cert tls.Certificate) error {
	path := keptCertPath(statePath)
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		return err
	}
	data := append(certPEM(cert), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key})...)
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		return usageErrorf("certificate %s: cannot write it: %v", path, withoutTempName(err))
	}
	return nil
}

// loadCert reads a PEM certificate and key pair.
func loadCert(certFile, keyFile string) (tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return tls.Certificate{}, usageErrorf("--cert %s / --key %s: %v", certFile, keyFile, err)
	}
	if c.Leaf == nil {
		if c.Leaf, err = x509.ParseCertificate(c.Certificate[0]); err != nil {
			return tls.Certificate{}, usageErrorf("--cert %s: %v", certFile, err)
		}
	}
	return c, nil
}

// fingerprint is the SHA-256 of the leaf certificate's DER form in hex,
// what access.WithPinnedCertificate takes.
func fingerprint(c tls.Certificate) string {
	sum := sha256.Sum256(c.Certificate[0])
	return hex.EncodeToString(sum[:])
}

// publicKeyPin is the certificate's public-key pin as curl's
// --pinnedpubkey takes it: sha256// and the base64 SHA-256 of the
// SubjectPublicKeyInfo.
func publicKeyPin(c tls.Certificate) string {
	sum := sha256.Sum256(c.Leaf.RawSubjectPublicKeyInfo)
	return "sha256//" + base64.StdEncoding.EncodeToString(sum[:])
}

// certPEM is the leaf certificate in PEM form, for curl --cacert.
func certPEM(c tls.Certificate) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]})
}
