/* A loaded PE image's ReadyToRun header, parsed inside a bounded byte range. */
#include "image/readytorun_image.h"

#include <string.h>

/* PE/COFF facts (the PE format specification). */
#define PE_DOS_HEADER_BYTES 64u
#define PE_LFANEW_OFFSET 0x3Cu
#define PE_MAX_LFANEW (1u << 20)
#define PE_SIGNATURE_AND_COFF_BYTES 24u /* "PE\0\0" and the 20-byte COFF header */
#define PE_MAX_SECTIONS 96u
#define PE_SECTION_HEADER_BYTES 40u
#define PE_MAGIC_PE32 0x10Bu
#define PE_MAGIC_PE32_PLUS 0x20Bu
#define PE_CLI_DIRECTORY 14u
/* ECMA-335 II.25.3.3: the CLI header is 72 bytes; ManagedNativeHeader is its last directory. */
#define CLI_HEADER_BYTES 72u
#define CLI_MANAGED_NATIVE_HEADER_OFFSET 64u
/* READYTORUN_HEADER: signature, major, minor, flags, section count; then 12-byte sections
 * (type, RVA, size). */
#define R2R_HEADER_BYTES 16u
#define R2R_SECTION_BYTES 12u

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
    return rd16(p) | (rd16(p + 2) << 16);
}

/* The headers, once aip_pe_extent has checked that they lie inside the range. */
typedef struct pe_view {
    const uint8_t *image;
    size_t length;
    aip_image_layout layout;
    uint32_t optional;      /* offset of the optional header */
    uint32_t optional_size; /* SizeOfOptionalHeader */
    uint32_t sections;      /* offset of the section table */
    uint32_t section_count;
    uint32_t size_of_headers;
    uint32_t directory; /* offset of the data directories */
    uint32_t directory_count;
} pe_view;

static aip_image_result read_headers(const uint8_t *image, size_t length, aip_image_layout layout,
                                     size_t *needed, pe_view *v)
{
    memset(v, 0, sizeof *v);
    v->image = image;
    v->length = length;
    v->layout = layout;
    *needed = PE_DOS_HEADER_BYTES;
    if (image == NULL || length < PE_DOS_HEADER_BYTES)
        return image == NULL ? AIP_IMAGE_MALFORMED : AIP_IMAGE_NEED_MORE;
    if (image[0] != 'M' || image[1] != 'Z')
        return AIP_IMAGE_MALFORMED;
    uint32_t lfanew = rd32(image + PE_LFANEW_OFFSET);
    if (lfanew < PE_DOS_HEADER_BYTES || lfanew > PE_MAX_LFANEW)
        return AIP_IMAGE_MALFORMED;
    *needed = (size_t)lfanew + PE_SIGNATURE_AND_COFF_BYTES + 2u; /* and the optional magic */
    if (length < *needed)
        return AIP_IMAGE_NEED_MORE;
    const uint8_t *pe = image + lfanew;
    if (pe[0] != 'P' || pe[1] != 'E' || pe[2] != 0 || pe[3] != 0)
        return AIP_IMAGE_MALFORMED;
    v->section_count = rd16(pe + 6);
    v->optional_size = rd16(pe + 20);
    v->optional = lfanew + PE_SIGNATURE_AND_COFF_BYTES;
    uint32_t magic = rd16(image + v->optional);
    uint32_t directory_offset = magic == PE_MAGIC_PE32        ? 96u
                                : magic == PE_MAGIC_PE32_PLUS ? 112u
                                                              : 0u;
    if (directory_offset == 0 || v->section_count > PE_MAX_SECTIONS ||
        v->optional_size < directory_offset)
        return AIP_IMAGE_MALFORMED;
    v->sections = v->optional + v->optional_size;
    *needed = (size_t)v->sections + (size_t)v->section_count * PE_SECTION_HEADER_BYTES;
    if (length < *needed)
        return AIP_IMAGE_NEED_MORE;
    v->size_of_headers = rd32(image + v->optional + 60);
    v->directory = v->optional + directory_offset;
    v->directory_count = rd32(image + v->optional + directory_offset - 4);
    if (v->directory_count > (v->optional_size - directory_offset) / 8u)
        return AIP_IMAGE_MALFORMED; /* directories beyond the optional header */
    return AIP_IMAGE_OK;
}

aip_image_result aip_pe_extent(const uint8_t *image, size_t length, aip_image_layout layout,
                               size_t *needed, uint32_t *extent)
{
    pe_view v;
    *extent = 0;
    aip_image_result result = read_headers(image, length, layout, needed, &v);
    if (result != AIP_IMAGE_OK)
        return result;
    uint64_t headers_end = *needed;
    uint64_t end = headers_end;
    if (layout == AIP_IMAGE_MAPPED) {
        end = rd32(image + v.optional + 56); /* SizeOfImage */
        if (end < headers_end)
            return AIP_IMAGE_MALFORMED;
    } else {
        for (uint32_t i = 0; i < v.section_count; ++i) {
            const uint8_t *s = image + v.sections + i * PE_SECTION_HEADER_BYTES;
            uint64_t raw_end = (uint64_t)rd32(s + 20) + rd32(s + 16);
            if (raw_end > end)
                end = raw_end;
        }
    }
    if (end > UINT32_MAX)
        return AIP_IMAGE_MALFORMED;
    *extent = (uint32_t)end;
    return AIP_IMAGE_OK;
}

/* The offset of [rva, rva + size) in the range: mapped, the RVA itself; flat, through the
 * section that holds it (or the headers). 0 when it does not lie wholly inside one of them and
 * inside the range. */
static int locate(const pe_view *v, uint32_t rva, uint32_t size, uint64_t *offset)
{
    uint64_t start = rva;
    if (v->layout == AIP_IMAGE_FLAT && rva >= v->size_of_headers) {
        int found = 0;
        for (uint32_t i = 0; i < v->section_count && !found; ++i) {
            const uint8_t *s = v->image + v->sections + i * PE_SECTION_HEADER_BYTES;
            uint32_t va = rd32(s + 12), raw_size = rd32(s + 16), raw = rd32(s + 20);
            if (rva >= va && (uint64_t)rva - va + size <= raw_size) {
                start = (uint64_t)raw + (rva - va);
                found = 1;
            }
        }
        if (!found)
            return 0;
    }
    if (start + size > v->length)
        return 0;
    *offset = start;
    return 1;
}

/* ---- NativeFormat (CoreCLR's nativeformatreader.h encoding) ------------------------------ */

/* How many bytes a value takes, from its first byte's low bits (0: an encoding we refuse). */
static size_t native_length(uint32_t b)
{
    return (b & 1u) == 0    ? 1
           : (b & 2u) == 0  ? 2
           : (b & 4u) == 0  ? 3
           : (b & 8u) == 0  ? 4
           : (b & 16u) == 0 ? 5
                            : 0;
}

/* An unsigned value: the low bits of the first byte say its length (x0: 1 byte, x01: 2, x011: 3,
 * x0111: 4, 01111: 4 more bytes). 0 when it does not fit before `end`. */
static int native_unsigned(const uint8_t *base, size_t end, size_t *at, uint32_t *value)
{
    if (*at >= end)
        return 0;
    const uint8_t *p = base + *at;
    uint32_t b = p[0];
    size_t length = native_length(b);
    if (length == 0 || end - *at < length)
        return 0;
    if (length == 1)
        *value = b >> 1;
    else if (length == 2)
        *value = (b >> 2) | ((uint32_t)p[1] << 6);
    else if (length == 3)
        *value = (b >> 3) | ((uint32_t)p[1] << 5) | ((uint32_t)p[2] << 13);
    else if (length == 4)
        *value = (b >> 4) | ((uint32_t)p[1] << 4) | ((uint32_t)p[2] << 12) | ((uint32_t)p[3] << 20);
    else
        *value = rd32(p + 1);
    *at += length;
    return 1;
}

/* A signed value: the unsigned encoding of its 7, 14, 21 or 28 low bits (or all 32), sign-extended.
 */
static int native_signed(const uint8_t *base, size_t end, size_t *at, int64_t *value)
{
    size_t start = *at;
    uint32_t bits = 0;
    if (!native_unsigned(base, end, at, &bits))
        return 0;
    size_t length = *at - start;
    int64_t sign = length < 5 ? (int64_t)1 << (7 * length - 1) : (int64_t)1 << 31;
    *value = ((int64_t)bits ^ sign) - sign;
    return 1;
}

static uint32_t read_index(const uint8_t *p, uint32_t width)
{
    return width == 1 ? p[0] : width == 2 ? rd16(p) : rd32(p);
}

/* One entry's stream: its count, the inlinee's index and flags, a local inlinee's module. */
static aip_r2r_inline_scope entry_scope(const uint8_t *section, size_t size, size_t at,
                                        int multi_module)
{
    uint32_t count = 0, inlinee = 0, module = 0;
    if (!native_unsigned(section, size, &at, &count) || count == 0 ||
        !native_unsigned(section, size, &at, &inlinee))
        return AIP_R2R_INLINES_MALFORMED;
    if ((inlinee & 3u) != 0) /* an ILBody import of another module, or inliners of others */
        return AIP_R2R_INLINES_OTHER;
    if (multi_module && count > 1) {
        if (!native_unsigned(section, size, &at, &module))
            return AIP_R2R_INLINES_MALFORMED;
        if (module != 0)
            return AIP_R2R_INLINES_OTHER;
    }
    return AIP_R2R_INLINES_LOCAL;
}

aip_r2r_inline_scope aip_r2r_inline_scope_of(const uint8_t *section, size_t size, int multi_module)
{
    if (section == NULL || size < 1)
        return AIP_R2R_INLINES_MALFORMED;
    uint32_t header = section[0];
    uint32_t shift = header >> 2, width_code = header & 3u;
    if (width_code == 3 || shift > 24)
        return AIP_R2R_INLINES_MALFORMED;
    uint32_t width = 1u << width_code, buckets = 1u << shift;
    const size_t base = 1; /* the bucket table, and what its offsets count from */
    if ((size - base) / width < (size_t)buckets + 1)
        return AIP_R2R_INLINES_MALFORMED;
    aip_r2r_inline_scope scope = AIP_R2R_INLINES_NONE;
    for (uint32_t b = 0; b < buckets; ++b) {
        size_t start = base + read_index(section + base + (size_t)b * width, width);
        size_t end = base + read_index(section + base + ((size_t)b + 1) * width, width);
        if (start > end || end > size)
            return AIP_R2R_INLINES_MALFORMED;
        for (size_t at = start; at < end;) {
            at += 1; /* the entry's hash byte */
            size_t where = at;
            int64_t delta = 0;
            if (at >= end || !native_signed(section, end, &at, &delta))
                return AIP_R2R_INLINES_MALFORMED;
            int64_t entry = (int64_t)where + delta;
            if (entry < 0 || (uint64_t)entry >= size)
                return AIP_R2R_INLINES_MALFORMED;
            aip_r2r_inline_scope one = entry_scope(section, size, (size_t)entry, multi_module);
            if (one == AIP_R2R_INLINES_OTHER || one == AIP_R2R_INLINES_MALFORMED)
                return one;
            scope = AIP_R2R_INLINES_LOCAL;
        }
    }
    return scope;
}

/* ---- The ReadyToRun header ------------------------------------------------------------- */

/* The sections we look for; 0 when section 119 does not lie inside the image. */
static int read_sections(const pe_view *v, const uint8_t *table, uint32_t count,
                         aip_readytorun_info *out)
{
    int multi_module = (out->flags & AIP_R2R_FLAG_MULTIMODULE_VERSION_BUBBLE) != 0;
    for (uint32_t i = 0; i < count; ++i) {
        const uint8_t *s = table + (size_t)i * R2R_SECTION_BYTES;
        uint32_t type = rd32(s), size = rd32(s + 8);
        uint64_t at = 0;
        if (type == AIP_R2R_SECTION_CROSS_MODULE_INLINES) {
            if (size != 0 && !locate(v, rd32(s + 4), size, &at))
                return 0;
            out->cross_module_inline_bytes = size;
            out->inline_scope = size == 0
                                    ? AIP_R2R_INLINES_NONE
                                    : aip_r2r_inline_scope_of(v->image + at, size, multi_module);
        } else if (type == AIP_R2R_SECTION_INLINING_INFO2) {
            out->has_inlining_info2 = 1;
        } else if (type == AIP_R2R_SECTION_COMPONENT_ASSEMBLIES) {
            out->has_component_assemblies = 1;
        } else if (type == AIP_R2R_SECTION_OWNER_COMPOSITE) {
            out->has_owner_composite = 1;
        }
    }
    return 1;
}

aip_image_result aip_readytorun_parse(const uint8_t *image, size_t length, aip_image_layout layout,
                                      aip_readytorun_info *out)
{
    memset(out, 0, sizeof *out);
    pe_view v;
    size_t needed = 0;
    if (read_headers(image, length, layout, &needed, &v) != AIP_IMAGE_OK)
        return AIP_IMAGE_MALFORMED;
    if (v.directory_count <= PE_CLI_DIRECTORY)
        return AIP_IMAGE_OK; /* no CLI directory: a native image */
    const uint8_t *cli_dir = image + v.directory + PE_CLI_DIRECTORY * 8u;
    uint32_t cli_rva = rd32(cli_dir), cli_size = rd32(cli_dir + 4);
    if (cli_rva == 0)
        return AIP_IMAGE_OK;
    uint64_t cli = 0;
    if (cli_size < CLI_HEADER_BYTES || !locate(&v, cli_rva, CLI_HEADER_BYTES, &cli))
        return AIP_IMAGE_MALFORMED;
    out->is_cli = 1;
    const uint8_t *native_dir = image + cli + CLI_MANAGED_NATIVE_HEADER_OFFSET;
    uint32_t native_rva = rd32(native_dir);
    if (native_rva == 0)
        return AIP_IMAGE_OK; /* IL only */
    uint64_t header = 0;
    if (!locate(&v, native_rva, R2R_HEADER_BYTES, &header))
        return AIP_IMAGE_MALFORMED;
    const uint8_t *h = image + header;
    if (rd32(h) != AIP_R2R_SIGNATURE)
        return AIP_IMAGE_OK; /* another kind of native header */
    uint32_t count = rd32(h + 12);
    if (count > AIP_R2R_MAX_SECTIONS)
        return AIP_IMAGE_MALFORMED;
    uint64_t table = 0;
    if (!locate(&v, native_rva, R2R_HEADER_BYTES + count * R2R_SECTION_BYTES, &table))
        return AIP_IMAGE_MALFORMED;
    out->is_readytorun = 1;
    out->major_version = (uint16_t)rd16(h + 4);
    out->minor_version = (uint16_t)rd16(h + 6);
    out->flags = rd32(h + 8);
    out->section_count = count;
    if (!read_sections(&v, image + table + R2R_HEADER_BYTES, count, out)) {
        memset(out, 0, sizeof *out);
        return AIP_IMAGE_MALFORMED;
    }
    int has_inline_info = out->cross_module_inline_bytes != 0;
    int other = out->inline_scope == AIP_R2R_INLINES_OTHER ||
                out->inline_scope == AIP_R2R_INLINES_MALFORMED;
    int bubble = (out->flags & AIP_R2R_FLAG_MULTIMODULE_VERSION_BUBBLE) != 0;
    out->may_inline_other_modules =
        (out->flags & (AIP_R2R_FLAG_COMPONENT | AIP_R2R_FLAG_UNRELATED_R2R_CODE)) != 0 ||
        out->has_component_assemblies || out->has_owner_composite ||
        (has_inline_info ? other : bubble);
    return AIP_IMAGE_OK;
}

/* ---- The module's MVID (ECMA-335 II.24.2) ------------------------------------------------ */

#define CLI_METADATA_DIRECTORY_OFFSET 8u
#define MD_ROOT_SIGNATURE 0x424A5342u /* "BSJB" */
#define MD_ROOT_FIXED_BYTES 16u       /* signature, versions, reserved, version length */
#define MD_MAX_STREAMS 16u
#define MD_STREAM_NAME_MAX 32u
#define MD_TABLES_HEADER_BYTES 24u
#define MD_HEAP_STRINGS_WIDE 0x01u
#define MD_HEAP_GUID_WIDE 0x02u
#define MD_HEAP_EXTRA_DATA 0x40u /* #- streams: 4 more bytes after the row counts */
#define MD_GUID_BYTES 16u

typedef struct md_stream {
    uint32_t offset;
    uint32_t size;
} md_stream;

/* Whether the stream header's name at [name, name + room) is `expected`, and how many bytes
 * (the name, its terminator, padded to 4) the header's name takes; 0 when it is not terminated
 * inside the room or MD_STREAM_NAME_MAX. */
static uint32_t stream_name(const uint8_t *name, size_t room, const char *expected, int *match)
{
    size_t limit = room < MD_STREAM_NAME_MAX ? room : MD_STREAM_NAME_MAX;
    size_t n = 0;
    while (n < limit && name[n] != 0)
        ++n;
    if (n == limit)
        return 0;
    *match = strlen(expected) == n && memcmp(name, expected, n) == 0;
    return (uint32_t)((n + 1 + 3) & ~(size_t)3);
}

/* The #~ (or #-) and #GUID streams of the metadata root at [root, root + size). */
static int find_streams(const uint8_t *root, uint32_t size, md_stream *tables, md_stream *guids)
{
    if (size < MD_ROOT_FIXED_BYTES || rd32(root) != MD_ROOT_SIGNATURE)
        return 0;
    uint32_t version_length = rd32(root + 12);
    if (version_length > size - MD_ROOT_FIXED_BYTES - 4u)
        return 0;
    size_t at = MD_ROOT_FIXED_BYTES + version_length;
    uint32_t count = rd16(root + at + 2);
    at += 4;
    int found_tables = 0, found_guids = 0;
    for (uint32_t i = 0; i < count && i < MD_MAX_STREAMS; ++i) {
        if (size - at < 8u + 4u)
            return 0;
        md_stream s = {rd32(root + at), rd32(root + at + 4)};
        if (s.offset > size || s.size > size - s.offset)
            return 0;
        int compressed = 0, uncompressed = 0, guid = 0;
        const uint8_t *name = root + at + 8;
        size_t room = size - at - 8u;
        uint32_t taken = stream_name(name, room, "#~", &compressed);
        if (taken == 0 || taken > room)
            return 0;
        stream_name(name, room, "#-", &uncompressed);
        stream_name(name, room, "#GUID", &guid);
        if (compressed || uncompressed) {
            *tables = s;
            found_tables = 1;
        } else if (guid) {
            *guids = s;
            found_guids = 1;
        }
        at += 8u + taken;
    }
    return found_tables && found_guids;
}

aip_image_result aip_image_mvid(const uint8_t *image, size_t length, aip_image_layout layout,
                                uint8_t mvid[16])
{
    memset(mvid, 0, MD_GUID_BYTES);
    pe_view v;
    size_t needed = 0;
    if (read_headers(image, length, layout, &needed, &v) != AIP_IMAGE_OK ||
        v.directory_count <= PE_CLI_DIRECTORY)
        return AIP_IMAGE_MALFORMED;
    const uint8_t *cli_dir = image + v.directory + PE_CLI_DIRECTORY * 8u;
    uint64_t cli = 0;
    if (rd32(cli_dir) == 0 || rd32(cli_dir + 4) < CLI_HEADER_BYTES ||
        !locate(&v, rd32(cli_dir), CLI_HEADER_BYTES, &cli))
        return AIP_IMAGE_MALFORMED;
    uint32_t md_rva = rd32(image + cli + CLI_METADATA_DIRECTORY_OFFSET);
    uint32_t md_size = rd32(image + cli + CLI_METADATA_DIRECTORY_OFFSET + 4);
    uint64_t md = 0;
    if (md_rva == 0 || !locate(&v, md_rva, md_size, &md))
        return AIP_IMAGE_MALFORMED;
    const uint8_t *root = image + md;
    md_stream tables = {0, 0}, guids = {0, 0};
    if (!find_streams(root, md_size, &tables, &guids) || tables.size < MD_TABLES_HEADER_BYTES)
        return AIP_IMAGE_MALFORMED;
    const uint8_t *t = root + tables.offset;
    uint32_t heaps = t[6];
    uint64_t valid = (uint64_t)rd32(t + 8) | ((uint64_t)rd32(t + 12) << 32);
    if ((valid & 1u) == 0)
        return AIP_IMAGE_MALFORMED; /* no Module table */
    uint32_t present = 0;
    for (uint64_t bits = valid; bits != 0; bits &= bits - 1)
        ++present;
    uint64_t row =
        MD_TABLES_HEADER_BYTES + 4ull * present + ((heaps & MD_HEAP_EXTRA_DATA) != 0 ? 4u : 0u);
    uint32_t string_width = (heaps & MD_HEAP_STRINGS_WIDE) != 0 ? 4u : 2u;
    uint32_t guid_width = (heaps & MD_HEAP_GUID_WIDE) != 0 ? 4u : 2u;
    if (row + 2u + string_width + guid_width > tables.size || rd32(t + MD_TABLES_HEADER_BYTES) == 0)
        return AIP_IMAGE_MALFORMED; /* the Module table's row count comes first: table 0 */
    const uint8_t *index = t + row + 2u + string_width;
    uint32_t guid = guid_width == 4u ? rd32(index) : rd16(index);
    if (guid == 0 || (uint64_t)guid * MD_GUID_BYTES > guids.size)
        return AIP_IMAGE_MALFORMED;
    memcpy(mvid, root + guids.offset + (size_t)(guid - 1u) * MD_GUID_BYTES, MD_GUID_BYTES);
    return AIP_IMAGE_OK;
}
