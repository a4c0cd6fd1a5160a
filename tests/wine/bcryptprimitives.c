/* A stand-in for Windows' bcryptprimitives.dll, which Debian 12's Wine 8 lacks: Rust's std calls
 * its ProcessPrng for randomness, so no Rust .exe loads without it. RtlGenRandom (advapi32's
 * SystemFunction036) gives the same: bytes from the system's random source. Test use only. */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) { return RtlGenRandom(data, (ULONG)len); }
