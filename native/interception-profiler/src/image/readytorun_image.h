/* A loaded PE image's ReadyToRun header: the PE headers, the CLI header's ManagedNativeHeader,
 * the READYTORUN_HEADER it points to (its flags and section list), and whether the image's
 * precompiled code may inline methods of other assemblies without the runtime tracking it.
 * Pure and bounded: every read lies inside the byte range given. Our own declarations of the
 * format (PE/COFF; ECMA-335 II.25.3.3; the ReadyToRun format of CoreCLR). */
#ifndef AIP_READYTORUN_IMAGE_H
#define AIP_READYTORUN_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define AIP_R2R_SIGNATURE 0x00525452u /* 'RTR' */

/* READYTORUN_HEADER's flags: a component of a composite image; compiled with other modules
 * in its version bubble; holding code of methods of other modules. */
#define AIP_R2R_FLAG_COMPONENT 0x20u
#define AIP_R2R_FLAG_MULTIMODULE_VERSION_BUBBLE 0x40u
#define AIP_R2R_FLAG_UNRELATED_R2R_CODE 0x80u

/* READYTORUN_SECTION types we look for: inlining inside the version bubble; a composite
 * image's component list; a component's composite; inlinees of other modules
 * (crossgen2 --opt-cross-module). */
#define AIP_R2R_SECTION_INLINING_INFO2 114u
#define AIP_R2R_SECTION_COMPONENT_ASSEMBLIES 115u
#define AIP_R2R_SECTION_OWNER_COMPOSITE 116u
#define AIP_R2R_SECTION_CROSS_MODULE_INLINES 119u

/* At most this many sections are read; an image declaring more is malformed. */
#define AIP_R2R_MAX_SECTIONS 256u

typedef enum aip_image_result {
    AIP_IMAGE_OK = 0,
    AIP_IMAGE_NEED_MORE = 1, /* aip_pe_extent: call again with `*needed` readable bytes */
    AIP_IMAGE_MALFORMED = 2, /* a header or a reference leaves the range or is inconsistent */
} aip_image_result;

/* How the image lies in memory: as mapped by the loader (an RVA is an offset from the base)
 * or as the file's bytes (an RVA is translated through the section table). */
typedef enum aip_image_layout { AIP_IMAGE_MAPPED = 0, AIP_IMAGE_FLAT = 1 } aip_image_layout;

typedef struct aip_readytorun_info {
    uint8_t is_cli;        /* has a CLI header */
    uint8_t is_readytorun; /* its ManagedNativeHeader is a READYTORUN_HEADER */
    uint16_t major_version;
    uint16_t minor_version;
    uint16_t reserved;
    uint32_t flags;                     /* AIP_R2R_FLAG_* and the others, as stored */
    uint32_t section_count;             /* as declared (bounded by AIP_R2R_MAX_SECTIONS) */
    uint32_t cross_module_inline_bytes; /* size of section 119, 0 when absent */
    /* What section 119's entries say (aip_r2r_inline_scope), AIP_R2R_INLINES_NONE when absent. */
    uint8_t inline_scope;
    uint8_t has_inlining_info2;
    uint8_t has_component_assemblies;
    uint8_t has_owner_composite;
    /* Its code may hold inlined bodies of methods of other assemblies: section 119 names an
     * inlinee of another module (or cannot be read), a multi-module version bubble without
     * section 119, unrelated code, or a composite or one of its components. */
    uint8_t may_inline_other_modules;
} aip_readytorun_info;

/* What a CrossModuleInlineInfo section (119) records. */
typedef enum aip_r2r_inline_scope {
    AIP_R2R_INLINES_NONE = 0,      /* no entries */
    AIP_R2R_INLINES_LOCAL = 1,     /* only inlinees of the image's own module */
    AIP_R2R_INLINES_OTHER = 2,     /* an inlinee of another module, or inliners of other modules */
    AIP_R2R_INLINES_MALFORMED = 3, /* the section does not read as its format */
} aip_r2r_inline_scope;

/* Reads section 119, [section, section + size): a NativeHashtable (a header byte: bucket count
 * shift and entry index size; the bucket offsets; per entry a hash byte and a relative offset)
 * whose entries are streams: a count, then the inlinee's index and flags (0x1 an ILBody import
 * of another module, 0x2 has inliners of other modules), then, in the multi-module format
 * (READYTORUN_FLAG_MULTIMODULE_VERSION_BUBBLE), a local inlinee's module index (0: the image's
 * own). Stops at the first entry of another module; reads O(1) values per entry, every read
 * inside the range. */
aip_r2r_inline_scope aip_r2r_inline_scope_of(const uint8_t *section, size_t size, int multi_module);

/* The extent of the image that the headers describe, learned from its first `length`
 * readable bytes: mapped, SizeOfImage; flat, the end of the furthest section's raw data
 * (and of the headers). AIP_IMAGE_NEED_MORE with `*needed` (> length) when the headers go
 * on beyond `length`: read that many and call again. Never reads past `length`. */
aip_image_result aip_pe_extent(const uint8_t *image, size_t length, aip_image_layout layout,
                               size_t *needed, uint32_t *extent);

/* Parses the image's headers inside [image, image + length): `out` says whether it is a CLI
 * image and a ReadyToRun one, with the header's fields. AIP_IMAGE_OK for any well-formed PE
 * (a native PE or an IL-only assembly is OK and not ReadyToRun); AIP_IMAGE_MALFORMED when a
 * header, the CLI header or the ReadyToRun header does not lie inside the range. */
aip_image_result aip_readytorun_parse(const uint8_t *image, size_t length, aip_image_layout layout,
                                      aip_readytorun_info *out);

/* The module's MVID, read from its metadata inside [image, image + length) (ECMA-335 II.24.2:
 * the CLI header's MetaData directory, the metadata root, its #~ (or #-) and #GUID streams, the
 * Module table's one row and its Mvid index into #GUID), without the runtime's metadata
 * interfaces. AIP_IMAGE_OK with the 16 bytes as stored (the GUID's little-endian fields);
 * AIP_IMAGE_MALFORMED when the image has no CLI metadata or a header, a stream or the row does
 * not lie inside the range. */
aip_image_result aip_image_mvid(const uint8_t *image, size_t length, aip_image_layout layout,
                                uint8_t mvid[16]);

#endif
