package connect

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestConsoleWays(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []Way{
		{"direct", "https://192.168.1.1:12445"},
		{"proxy", "https://192.168.1.1/proxy/access/integration/v1/developer"},
		{"older proxy", "https://192.168.1.1/proxy/access/api/v1/developer"},
	}, ConsoleWays("192.168.1.1"))
	assert.Equal(t, "https://console.lan:8443", ConsoleWays("console.lan:8443")[0].URL, "a given port serves every way")
	assert.Equal(t, "https://console.lan:8443/proxy/access/integration/v1/developer", ConsoleWays("console.lan:8443")[1].URL)
	assert.Equal(t, "https://[fe80::1]:12445", ConsoleWays("fe80::1")[0].URL)
	assert.Equal(t, "https://[fe80::1]/proxy/access/integration/v1/developer", ConsoleWays("fe80::1")[1].URL)
}
