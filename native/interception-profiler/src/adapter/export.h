/* Export control for the library's own entry points (the header's functions get
 * ALVK_API from the public header; DllGetClassObject gets AIP_COM_EXPORT). */
#ifndef AIP_EXPORT_H
#define AIP_EXPORT_H

#if defined(_WIN32)
#define AIP_COM_EXPORT __declspec(dllexport)
#else
#define AIP_COM_EXPORT __attribute__((visibility("default")))
#endif

#if defined(__GNUC__) || defined(__clang__)
#define AIP_MAYBE_UNUSED __attribute__((unused))
#else
#define AIP_MAYBE_UNUSED
#endif

#endif
