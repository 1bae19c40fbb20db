using System.Buffers.Binary;
using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Native;

// Relocation arrays as the opened library reads them: today's layout, or, for a library of
// ABI 3.8 or older (which knows no operand sites), the older 36-byte layout with every site
// made a relocation of its own.
public sealed unsafe partial class ProfilerLibrary
{
    /// <summary>The first ABI minor version whose alvk_relocation carries operand sites.</summary>
    public const uint FirstMinorWithRelocationSites = 9;

    /// <summary>sizeof(alvk_relocation) before the operand sites (ABI 3.8 and older).</summary>
    public const int RelocationSizeWithoutSites = 36;

    /// <summary>Whether the opened library takes relocations that fill more than one operand
    /// (alvk_relocation's sites_offset and site_count). With an older one every call here
    /// passes each site as one more relocation, appended after the others.</summary>
    public bool TakesRelocationSites => MinorOf(VersionNumber) >= FirstMinorWithRelocationSites;

    // `relocations` laid out for this library, each relocation's Size `size` (null: the
    // layout's own). An older library gets the 36-byte layout and a copy of each relocation per
    // site (read from `pool`) at the end: the rows parents and class references name stay put.
    private byte[] LaidOut(ReadOnlySpan<AlvkRelocation> relocations, byte* pool, uint? size, out uint count)
    {
        if (TakesRelocationSites)
        {
            byte[] bytes = MemoryMarshal.AsBytes(relocations).ToArray();
            Span<AlvkRelocation> laid = MemoryMarshal.Cast<byte, AlvkRelocation>(bytes.AsSpan());
            foreach (ref AlvkRelocation r in laid)
                r.Size = size ?? (uint)sizeof(AlvkRelocation);
            count = (uint)laid.Length;
            return bytes;
        }
        var all = new List<AlvkRelocation>(relocations.Length);
        foreach (AlvkRelocation r in relocations)
            all.Add(r with { SitesOffset = 0, SiteCount = 0 });
        foreach (AlvkRelocation r in relocations)
        {
            for (uint j = 0; j < r.SiteCount; j++)
            {
                uint site = BinaryPrimitives.ReadUInt32LittleEndian(new ReadOnlySpan<byte>(pool + r.SitesOffset + 4 * j, 4));
                all.Add(r with { ILOffset = site, SitesOffset = 0, SiteCount = 0 });
            }
        }
        var old = new byte[all.Count * RelocationSizeWithoutSites];
        for (int i = 0; i < all.Count; i++)
        {
            AlvkRelocation r = all[i];
            r.Size = size ?? RelocationSizeWithoutSites;
            new ReadOnlySpan<byte>(&r, RelocationSizeWithoutSites).CopyTo(old.AsSpan(i * RelocationSizeWithoutSites));
        }
        count = (uint)all.Count;
        return old;
    }
}
