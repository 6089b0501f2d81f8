package simulator_test

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/simulator"
)

// TestCertificateKeptBesideTheState: with a state file the self-signed
// certificate and its key are kept beside it (mode 0600), and a restart
// presents the same certificate, so that pinned clients keep trusting
// it. It is a leaf certificate for the served names, valid for at most
// 397 days, not a CA.
func TestCertificateKeptBesideTheState(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	cfg := simulator.Config{Addr: "127.0.0.1:0", StatePath: path, NoUI: true}
	sim, err := simulator.Start(cfg)
	require.NoError(t, err)
	first := sim.Sites[0].Fingerprint
	require.NoError(t, sim.Close())

	fi, err := os.Stat(path + ".tls.pem")
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	leaf := parsePEM(t, sim.Sites[0].CertPEM)
	assert.False(t, leaf.IsCA, "a leaf certificate")
	assert.Zero(t, leaf.KeyUsage&x509.KeyUsageCertSign, "that signs no other")
	assert.LessOrEqual(t, leaf.NotAfter.Sub(leaf.NotBefore), 398*24*time.Hour)
	assert.NoError(t, leaf.VerifyHostname("127.0.0.1"))
	assert.NoError(t, leaf.VerifyHostname("localhost"))

	sim, err = simulator.Start(cfg)
	require.NoError(t, err)
	defer sim.Close()
	assert.Equal(t, first, sim.Sites[0].Fingerprint, "the same certificate after a restart")

	other, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", NoUI: true})
	require.NoError(t, err)
	defer other.Close()
	assert.NotEqual(t, first, other.Sites[0].Fingerprint, "without a state file, a certificate of its own")
}

// A kept certificate that does not name the address served is replaced.
func TestKeptCertificateNamesTheAddress(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", StatePath: path, NoUI: true})
	require.NoError(t, err)
	first := sim.Sites[0].Fingerprint
	require.NoError(t, sim.Close())
	sim, err = simulator.Start(simulator.Config{Addr: "127.0.0.2:0", StatePath: path, NoUI: true})
	if err != nil {
		t.Skipf("127.0.0.2 is not usable here: %v", err)
	}
	defer sim.Close()
	assert.NotEqual(t, first, sim.Sites[0].Fingerprint)
	assert.NoError(t, parsePEM(t, sim.Sites[0].CertPEM).VerifyHostname("127.0.0.2"))
}

func parsePEM(t *testing.T, b []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(b)
	require.NotNil(t, block)
	c, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	return c
}
