//go:build !unix

package synccmd

// claimHangup: there is no SIGHUP here; the configuration is read at
// start only.
func claimHangup() (hup <-chan struct{}, release func()) { return nil, func() {} }
