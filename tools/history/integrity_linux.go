package history

import (
	"os"
	"syscall"
)

func statStamp(path string) (fileStamp, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size,
		MtimeNS: st.Mtim.Nano(), CtimeNS: st.Ctim.Nano()}, true
}
