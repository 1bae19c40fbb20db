namespace AlvorKit.Interception.Native;

// The patch functions: thin calls that return the native status. Commands return at once;
// PatchWait and PatchGetTelemetry give their results.
public sealed unsafe partial class ProfilerLibrary
{
    private readonly delegate* unmanaged<AlvkInstallRequest*, ulong*, AlvkStatus> _patchInstall;
    private readonly delegate* unmanaged<ulong, ulong, ulong, AlvkStatus> _patchReplace;
    private readonly delegate* unmanaged<ulong, ulong, AlvkStatus> _patchRemove;
    private readonly delegate* unmanaged<ulong, uint, AlvkStatus> _patchWait;
    private readonly delegate* unmanaged<ulong, AlvkPatchTelemetry*, AlvkStatus> _patchGetTelemetry;

    /// <summary>alvk_patch_install. The caller sets request.Size (AlvkInstallRequest.For does).</summary>
    public AlvkStatus PatchInstall(in AlvkInstallRequest request, out ulong handle)
    {
        handle = 0;
        AlvkInstallRequest copy = request;
        fixed (ulong* h = &handle)
            return _patchInstall(&copy, h);
    }

    /// <summary>alvk_patch_install with NULL arguments, to prove they are refused.</summary>
    public AlvkStatus PatchInstallWithNulls(in AlvkInstallRequest request, bool nullRequest, bool nullHandle)
    {
        AlvkInstallRequest copy = request;
        ulong handle = 0;
        return _patchInstall(nullRequest ? null : &copy, nullHandle ? null : &handle);
    }

    /// <summary>alvk_patch_replace.</summary>
    public AlvkStatus PatchReplace(ulong handle, ulong owner, IntPtr replacement) =>
        _patchReplace(handle, owner, (ulong)replacement);

    /// <summary>alvk_patch_remove.</summary>
    public AlvkStatus PatchRemove(ulong handle, ulong owner) => _patchRemove(handle, owner);

    /// <summary>alvk_patch_wait.</summary>
    public AlvkStatus PatchWait(ulong handle, uint timeoutMs) => _patchWait(handle, timeoutMs);

    /// <summary>alvk_patch_get_telemetry; `size` overrides the struct's size field (tests).</summary>
    public AlvkStatus PatchGetTelemetry(ulong handle, out AlvkPatchTelemetry telemetry, uint? size = null)
    {
        telemetry = default;
        telemetry.Size = size ?? (uint)sizeof(AlvkPatchTelemetry);
        fixed (AlvkPatchTelemetry* p = &telemetry)
            return _patchGetTelemetry(handle, p);
    }

    /// <summary>alvk_patch_get_telemetry with a NULL `out`, to prove it is refused.</summary>
    public AlvkStatus PatchGetTelemetryWithNull(ulong handle) => _patchGetTelemetry(handle, null);
}
