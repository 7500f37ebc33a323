/* gasnet_portable_platform.h: compiler, OS and CPU identification macros.
 *
 * The PLATFORM_* interface of GASNet (interface version 22), written for
 * this library from the documented meaning of each name:
 *   PLATFORM_COMPILER_<FAMILY>, _<FAMILY>_C / _<FAMILY>_CXX   1 or undefined
 *   PLATFORM_COMPILER_FAMILYNAME   unquoted token (GNU, CLANG, INTEL, ...)
 *   PLATFORM_COMPILER_FAMILYID     positive integer per family, 0 if unknown
 *   PLATFORM_COMPILER_ID           FAMILYID, plus 10000 when compiling C++
 *   PLATFORM_COMPILER_VERSION      integer growing with the compiler version
 *                                  (compare with the _GT/_GE/_EQ/_LE/_LT
 *                                  macros, not with literal constants)
 *   PLATFORM_COMPILER_VERSION_STR  the version as a string
 *   PLATFORM_COMPILER_IDSTR        a string naming family, version and
 *                                  language standard
 *   PLATFORM_COMPILER_C_LANGLVL / _CXX_LANGLVL  the language standard
 *                                  (e.g. 201710 for C17), one of the two
 *   PLATFORM_OS_<FAMILY>, PLATFORM_OS_FAMILYNAME
 *   PLATFORM_ARCH_<FAMILY>, PLATFORM_ARCH_FAMILYNAME,
 *   PLATFORM_ARCH_32 / _64, PLATFORM_ARCH_LITTLE_ENDIAN / _BIG_ENDIAN
 * If another copy of this interface was included first (PLATFORM_HEADER_VERSION
 * is defined), its definitions are kept.
 */
#ifndef PLATFORM_HEADER_VERSION
#define PLATFORM_HEADER_VERSION 22

#define _PLATFORM_STRINGIFY_HELPER(x) #x
#define PLATFORM_STRINGIFY(x) _PLATFORM_STRINGIFY_HELPER(x)

/* Default version encoding: one byte each for minor and patch. */
#define _PLATFORM_VERSION_INT3(maj, min, pat) (((maj) << 16) | ((min) << 8) | (pat))

/* ---- compiler ------------------------------------------------------------ */
/* Compilers that also define __GNUC__ (or __clang__) are tested first. */
#if defined(__INTEL_COMPILER)
#define PLATFORM_COMPILER_INTEL 1
#define PLATFORM_COMPILER_FAMILYNAME INTEL
#define PLATFORM_COMPILER_FAMILYID 2
#define _PLATFORM_COMPILER_SUFFIX(fam) fam
/* patch level: the build date (YYYYMMDD) counted from 1990 */
#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) \
    ((((maj) * 100 + (min)) << 19) | ((pat) < 19900000 ? 0 : (pat) - 19900000))
#ifdef __INTEL_COMPILER_BUILD_DATE
#define _PLATFORM_INTEL_DATE __INTEL_COMPILER_BUILD_DATE
#else
#define _PLATFORM_INTEL_DATE 19900000
#endif
#define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__INTEL_COMPILER / 100, __INTEL_COMPILER % 100, _PLATFORM_INTEL_DATE)
#define PLATFORM_COMPILER_VERSION_STR \
    PLATFORM_STRINGIFY(__INTEL_COMPILER) "." PLATFORM_STRINGIFY(_PLATFORM_INTEL_DATE)
#elif defined(__NVCOMPILER)
#define PLATFORM_COMPILER_NVHPC 1
#define PLATFORM_COMPILER_FAMILYNAME NVHPC
#define PLATFORM_COMPILER_FAMILYID 20
#define PLATFORM_COMPILER_VERSION \
    _PLATFORM_VERSION_INT3(__NVCOMPILER_MAJOR__, __NVCOMPILER_MINOR__, __NVCOMPILER_PATCHLEVEL__)
#define PLATFORM_COMPILER_VERSION_STR                                                    \
    PLATFORM_STRINGIFY(__NVCOMPILER_MAJOR__) "." PLATFORM_STRINGIFY(__NVCOMPILER_MINOR__) \
    "-" PLATFORM_STRINGIFY(__NVCOMPILER_PATCHLEVEL__)
#elif defined(__PGI)
#define PLATFORM_COMPILER_PGI 1
#define PLATFORM_COMPILER_FAMILYNAME PGI
#define PLATFORM_COMPILER_FAMILYID 4
#define PLATFORM_COMPILER_VERSION _PLATFORM_VERSION_INT3(__PGIC__, __PGIC_MINOR__, __PGIC_PATCHLEVEL__)
#define PLATFORM_COMPILER_VERSION_STR \
    PLATFORM_STRINGIFY(__PGIC__) "." PLATFORM_STRINGIFY(__PGIC_MINOR__) "-" PLATFORM_STRINGIFY(__PGIC_PATCHLEVEL__)
#elif defined(__xlC__) || defined(__ibmxl__)
#define PLATFORM_COMPILER_XLC 1
#define PLATFORM_COMPILER_FAMILYNAME XLC
#define PLATFORM_COMPILER_FAMILYID 5
#if defined(__ibmxl_version__)
#define PLATFORM_COMPILER_VERSION \
    _PLATFORM_VERSION_INT3(__ibmxl_version__, __ibmxl_release__, __ibmxl_modification__)
#else
#define PLATFORM_COMPILER_VERSION _PLATFORM_VERSION_INT3((__xlC__ >> 8), (__xlC__ & 0xff), 0)
#endif
#elif defined(_CRAYC)
#define PLATFORM_COMPILER_CRAY 1
#define PLATFORM_COMPILER_FAMILYNAME CRAY
#define PLATFORM_COMPILER_FAMILYID 10
#if defined(_RELEASE_MAJOR) && defined(_RELEASE_MINOR)
#define PLATFORM_COMPILER_VERSION _PLATFORM_VERSION_INT3(_RELEASE_MAJOR, _RELEASE_MINOR, 0)
#endif
#elif defined(__clang__)
#define PLATFORM_COMPILER_CLANG 1
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#define PLATFORM_COMPILER_FAMILYID 19
#define PLATFORM_COMPILER_VERSION \
    _PLATFORM_VERSION_INT3(__clang_major__, __clang_minor__, __clang_patchlevel__)
#define PLATFORM_COMPILER_VERSION_STR __clang_version__
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_GNU 1
#define PLATFORM_COMPILER_FAMILYNAME GNU
#define PLATFORM_COMPILER_FAMILYID 1
#define PLATFORM_COMPILER_VERSION \
    _PLATFORM_VERSION_INT3(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#define PLATFORM_COMPILER_VERSION_STR \
    PLATFORM_STRINGIFY(__GNUC__) "." PLATFORM_STRINGIFY(__GNUC_MINOR__) "." PLATFORM_STRINGIFY(__GNUC_PATCHLEVEL__)
#else
#define PLATFORM_COMPILER_UNKNOWN 1
#define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
#define PLATFORM_COMPILER_FAMILYID 0
#endif

/* <FAMILY>_C or <FAMILY>_CXX */
#ifdef __cplusplus
#define PLATFORM_COMPILER_ID (10000 + PLATFORM_COMPILER_FAMILYID)
#define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
#define _PLATFORM_LANG "C++"
#if defined(PLATFORM_COMPILER_INTEL)
#define PLATFORM_COMPILER_INTEL_CXX 1
#elif defined(PLATFORM_COMPILER_NVHPC)
#define PLATFORM_COMPILER_NVHPC_CXX 1
#elif defined(PLATFORM_COMPILER_PGI)
#define PLATFORM_COMPILER_PGI_CXX 1
#elif defined(PLATFORM_COMPILER_XLC)
#define PLATFORM_COMPILER_XLC_CXX 1
#elif defined(PLATFORM_COMPILER_CRAY)
#define PLATFORM_COMPILER_CRAY_CXX 1
#elif defined(PLATFORM_COMPILER_CLANG)
#define PLATFORM_COMPILER_CLANG_CXX 1
#elif defined(PLATFORM_COMPILER_GNU)
#define PLATFORM_COMPILER_GNU_CXX 1
#endif
#else
#define PLATFORM_COMPILER_ID PLATFORM_COMPILER_FAMILYID
#if defined(__STDC_VERSION__)
#define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
#else
#define PLATFORM_COMPILER_C_LANGLVL 198900L
#endif
#define _PLATFORM_LANG "C"
#if defined(PLATFORM_COMPILER_INTEL)
#define PLATFORM_COMPILER_INTEL_C 1
#elif defined(PLATFORM_COMPILER_NVHPC)
#define PLATFORM_COMPILER_NVHPC_C 1
#elif defined(PLATFORM_COMPILER_PGI)
#define PLATFORM_COMPILER_PGI_C 1
#elif defined(PLATFORM_COMPILER_XLC)
#define PLATFORM_COMPILER_XLC_C 1
#elif defined(PLATFORM_COMPILER_CRAY)
#define PLATFORM_COMPILER_CRAY_C 1
#elif defined(PLATFORM_COMPILER_CLANG)
#define PLATFORM_COMPILER_CLANG_C 1
#elif defined(PLATFORM_COMPILER_GNU)
#define PLATFORM_COMPILER_GNU_C 1
#endif
#endif

#ifndef PLATFORM_COMPILER_VERSION_INT
#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) _PLATFORM_VERSION_INT3(maj, min, pat)
#endif
#ifndef PLATFORM_COMPILER_VERSION
#define PLATFORM_COMPILER_VERSION 0
#endif
#ifndef PLATFORM_COMPILER_VERSION_STR
#define PLATFORM_COMPILER_VERSION_STR PLATFORM_STRINGIFY(PLATFORM_COMPILER_VERSION)
#endif
#define PLATFORM_COMPILER_VERSION_GT(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION > PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_GE(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION >= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_EQ(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION == PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LE(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION <= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LT(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION < PLATFORM_COMPILER_VERSION_INT(maj, min, pat))

#ifdef __cplusplus
#define _PLATFORM_STD ",__cplusplus=" PLATFORM_STRINGIFY(__cplusplus)
#elif defined(__STDC_VERSION__)
#define _PLATFORM_STD ",__STDC_VERSION__=" PLATFORM_STRINGIFY(__STDC_VERSION__)
#else
#define _PLATFORM_STD ""
#endif
#define PLATFORM_COMPILER_IDSTR                                              \
    "|COMPILER_FAMILY:" PLATFORM_STRINGIFY(PLATFORM_COMPILER_FAMILYNAME)     \
    "|COMPILER_VERSION:" PLATFORM_COMPILER_VERSION_STR                       \
    "|COMPILER_FAMILYID:" PLATFORM_STRINGIFY(PLATFORM_COMPILER_FAMILYID)     \
    "|STD:" _PLATFORM_LANG _PLATFORM_STD "|"

/* ---- operating system ---------------------------------------------------- */
#if defined(__linux__) || defined(__linux)
#define PLATFORM_OS_LINUX 1
#define PLATFORM_OS_FAMILYNAME LINUX
#elif defined(__APPLE__) && defined(__MACH__)
#define PLATFORM_OS_DARWIN 1
#define PLATFORM_OS_FAMILYNAME DARWIN
#elif defined(__FreeBSD__)
#define PLATFORM_OS_FREEBSD 1
#define PLATFORM_OS_FAMILYNAME FREEBSD
#elif defined(__NetBSD__)
#define PLATFORM_OS_NETBSD 1
#define PLATFORM_OS_FAMILYNAME NETBSD
#elif defined(__OpenBSD__)
#define PLATFORM_OS_OPENBSD 1
#define PLATFORM_OS_FAMILYNAME OPENBSD
#elif defined(__sun) || defined(__sun__)
#define PLATFORM_OS_SOLARIS 1
#define PLATFORM_OS_FAMILYNAME SOLARIS
#elif defined(_AIX)
#define PLATFORM_OS_AIX 1
#define PLATFORM_OS_FAMILYNAME AIX
#elif defined(__CYGWIN__)
#define PLATFORM_OS_CYGWIN 1
#define PLATFORM_OS_FAMILYNAME CYGWIN
#else
#define PLATFORM_OS_UNKNOWN 1
#define PLATFORM_OS_FAMILYNAME UNKNOWN
#endif

/* ---- CPU architecture ---------------------------------------------------- */
#if defined(__x86_64__) || defined(__amd64__)
#define PLATFORM_ARCH_X86_64 1
#define PLATFORM_ARCH_FAMILYNAME X86_64
#elif defined(__aarch64__)
#define PLATFORM_ARCH_AARCH64 1
#define PLATFORM_ARCH_FAMILYNAME AARCH64
#elif defined(__powerpc__) || defined(__powerpc64__) || defined(__ppc__)
#define PLATFORM_ARCH_POWERPC 1
#define PLATFORM_ARCH_FAMILYNAME POWERPC
#elif defined(__i386__) || defined(__i386)
#define PLATFORM_ARCH_X86 1
#define PLATFORM_ARCH_FAMILYNAME X86
#elif defined(__arm__)
#define PLATFORM_ARCH_ARM 1
#define PLATFORM_ARCH_FAMILYNAME ARM
#elif defined(__riscv)
#define PLATFORM_ARCH_RISCV 1
#define PLATFORM_ARCH_FAMILYNAME RISCV
#elif defined(__s390__)
#define PLATFORM_ARCH_S390 1
#define PLATFORM_ARCH_FAMILYNAME S390
#elif defined(__mips__)
#define PLATFORM_ARCH_MIPS 1
#define PLATFORM_ARCH_FAMILYNAME MIPS
#elif defined(__sparc__)
#define PLATFORM_ARCH_SPARC 1
#define PLATFORM_ARCH_FAMILYNAME SPARC
#else
#define PLATFORM_ARCH_UNKNOWN 1
#define PLATFORM_ARCH_FAMILYNAME UNKNOWN
#endif

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define PLATFORM_ARCH_LITTLE_ENDIAN 1
#elif defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLATFORM_ARCH_BIG_ENDIAN 1
#elif defined(PLATFORM_ARCH_X86_64) || defined(PLATFORM_ARCH_X86)
#define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif

#if (defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8) || defined(__LP64__) || defined(_LP64)
#define PLATFORM_ARCH_64 1
#else
#define PLATFORM_ARCH_32 1
#endif

#endif /* PLATFORM_HEADER_VERSION */
