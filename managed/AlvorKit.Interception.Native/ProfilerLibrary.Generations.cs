using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Native;

// The generation functions: thin calls that return the native status. Submit validates on
// the caller's thread and queues; PatchWait and GenerationGetResult give the outcome.
public sealed unsafe partial class ProfilerLibrary
{

    /// <summary>alvk_generation_submit. Sets generation.Size and the Size of every relocation
    /// (on a copy of the relocation array). The body, blob pool and IL map must stay pinned for
    /// the call; the library copies them.</summary>
    public AlvkStatus GenerationSubmit(in AlvkGeneration generation, out ulong handle, out ulong id) =>
        GenerationSubmit(generation, out handle, out id, null, null);

    /// <summary>alvk_generation_submit; `size` and `relocationSize` override the size fields (tests).</summary>
    internal AlvkStatus GenerationSubmit(in AlvkGeneration generation, out ulong handle, out ulong id,
        uint? size, uint? relocationSize)
    {
        handle = 0;
        id = 0;
        AlvkGeneration copy = WithSizes(generation, size, relocationSize, out byte[] relocations);
        fixed (byte* r = relocations)
        fixed (ulong* h = &handle)
        fixed (ulong* g = &id)
        {
            if (relocations.Length > 0)
                copy.Relocations = (AlvkRelocation*)r;
            return _exports.GenerationSubmit(&copy, h, g);
        }
    }

    /// <summary>alvk_generation_validate: the checks of alvk_generation_submit, without queuing;
    /// `failingIndex` names the relocation or IL map entry a failure is about. Sizes as
    /// GenerationSubmit sets them.</summary>
    public AlvkStatus GenerationValidate(in AlvkGeneration generation, out uint failingIndex) =>
        GenerationValidate(generation, out failingIndex, null, null);

    /// <summary>alvk_generation_validate; `size` and `relocationSize` override the size fields (tests).</summary>
    internal AlvkStatus GenerationValidate(in AlvkGeneration generation, out uint failingIndex, uint? size,
        uint? relocationSize)
    {
        failingIndex = 0;
        AlvkGeneration copy = WithSizes(generation, size, relocationSize, out byte[] relocations);
        fixed (byte* r = relocations)
        fixed (uint* f = &failingIndex)
        {
            if (relocations.Length > 0)
                copy.Relocations = (AlvkRelocation*)r;
            return _exports.GenerationValidate(&copy, f);
        }
    }

    // A copy of `generation` with its Size set, and its relocations copied with theirs set,
    // laid out for this library (ProfilerLibrary.Relocations.cs; the caller points the copy at
    // them while they are pinned).
    private AlvkGeneration WithSizes(in AlvkGeneration generation, uint? size, uint? relocationSize,
        out byte[] relocations)
    {
        AlvkGeneration copy = generation;
        copy.Size = size ?? (uint)sizeof(AlvkGeneration);
        relocations = [];
        if (copy.Relocations != null && copy.RelocationCount > 0)
        {
            relocations = LaidOut(new ReadOnlySpan<AlvkRelocation>(copy.Relocations, checked((int)copy.RelocationCount)),
                copy.Blobs, relocationSize, out uint count);
            copy.RelocationCount = count;
        }
        return copy;
    }

    /// <summary>alvk_generation_submit_batch (ABI 3.6): every generation (each's Size set here, on
    /// a copy; the caller sets the Size of every relocation, except for a library older than ABI
    /// 3.9, which gets them laid out as GenerationSubmit does) in one command, all or nothing;
    /// `handles`, `ids` and `statuses` hold at least as many entries as `generations`. Bodies,
    /// pools, relocations and IL maps must stay pinned for the call; the library copies them.</summary>
    public AlvkStatus GenerationSubmitBatch(ReadOnlySpan<AlvkGeneration> generations, Span<ulong> handles,
        Span<ulong> ids, Span<AlvkStatus> statuses)
    {
        if (handles.Length < generations.Length || ids.Length < generations.Length || statuses.Length < generations.Length)
            throw new ArgumentException("handles, ids and statuses need an entry per generation");
        AlvkGeneration[] copies = generations.ToArray();
        // At most one pinned array per generation (a plain array of handles: a framework list over GCHandle is not
        // precompiled).
        var pins = new GCHandle[copies.Length];
        int pinned = 0;
        try
        {
            for (int i = 0; i < copies.Length; i++)
            {
                copies[i].Size = (uint)sizeof(AlvkGeneration);
                if (TakesRelocationSites)
                    continue; /* the caller's relocations as they are */
                copies[i] = WithSizes(copies[i], null, null, out byte[] relocations);
                if (relocations.Length == 0)
                    continue;
                GCHandle pin = GCHandle.Alloc(relocations, GCHandleType.Pinned);
                pins[pinned++] = pin;
                copies[i].Relocations = (AlvkRelocation*)pin.AddrOfPinnedObject();
            }
            fixed (AlvkGeneration* g = copies)
            fixed (ulong* h = handles)
            fixed (ulong* id = ids)
            fixed (AlvkStatus* s = statuses)
                return _exports.GenerationSubmitBatch(g, (uint)copies.Length, h, id, s);
        }
        finally
        {
            for (int i = 0; i < pinned; i++)
                pins[i].Free();
        }
    }

    /// <summary>alvk_generation_submit_batch with raw arguments (NULLs, a count or stride of the
    /// caller's choosing), to prove bad input is refused.</summary>
    internal AlvkStatus GenerationSubmitBatchRaw(AlvkGeneration* generations, uint count, ulong* handles, ulong* ids,
        AlvkStatus* statuses) => _exports.GenerationSubmitBatch(generations, count, handles, ids, statuses);

    /// <summary>alvk_generation_submit with NULL arguments, to prove they are refused.</summary>
    internal AlvkStatus GenerationSubmitWithNulls(in AlvkGeneration generation, bool nullGeneration, bool nullHandle,
        bool nullId)
    {
        AlvkGeneration copy = generation;
        copy.Size = (uint)sizeof(AlvkGeneration);
        ulong handle = 0, id = 0;
        return _exports.GenerationSubmit(nullGeneration ? null : &copy, nullHandle ? null : &handle, nullId ? null : &id);
    }

    /// <summary>alvk_generation_get_result, with up to relocations.Length relocation results.
    /// Sets the Size of the result and of every relocation result.</summary>
    public AlvkStatus GenerationGetResult(ulong handle, ulong id, out AlvkGenerationResult result,
        Span<AlvkRelocationResult> relocations) => GenerationGetResult(handle, id, out result, relocations, size: null);

    /// <summary>alvk_generation_get_result; `size` overrides the result's size field (tests).</summary>
    internal AlvkStatus GenerationGetResult(ulong handle, ulong id, out AlvkGenerationResult result,
        Span<AlvkRelocationResult> relocations, uint? size)
    {
        result = default;
        result.Size = size ?? (uint)sizeof(AlvkGenerationResult);
        foreach (ref AlvkRelocationResult r in relocations)
        {
            r = default;
            r.Size = (uint)sizeof(AlvkRelocationResult);
        }
        fixed (AlvkGenerationResult* p = &result)
        fixed (AlvkRelocationResult* r = relocations)
            return _exports.GenerationGetResult(handle, id, p, relocations.IsEmpty ? null : r, (uint)relocations.Length);
    }
}
