package dirsync_test

import (
	"context"
	"testing"
)

// BenchmarkLDAPRead5000 reads 5,000 people from a loopback slapd with
// Active Directory's limits, in pages of 1,000 (bind, five pages,
// mapping). It skips without slapd.
func BenchmarkLDAPRead5000(b *testing.B) {
	srv := startSlapd(b, slapdOptions{users: 5000})
	cfg := ldapConfig(srv)
	cfg.PageSize = 1000
	src := newSource(b, cfg)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap, err := src.Read(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(snap.People) != 5000 {
			b.Fatal(snap.Summary())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/5000, "µs/person")
}
