//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package output

import (
	"os"
	"syscall"
	"unsafe"
)

// TTYWidth is the width in columns of the terminal f is, or 0.
func TTYWidth(f *os.File) int {
	var ws struct{ Row, Col, X, Y uint16 }
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); e != 0 {
		return 0
	}
	return int(ws.Col)
}
