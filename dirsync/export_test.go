package dirsync

// SetAfterPage makes s call f after each page it reads (tests only).
func SetAfterPage(s *LDAPSource, f func(page int)) { s.afterPage = f }
