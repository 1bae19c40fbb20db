namespace AlvorKit.Interception.Native;

// The patch functions: thin calls that return the native status. Commands return at once;
// PatchWait and PatchGetTelemetry give their results.
public sealed unsafe partial class ProfilerLibrary
{

    /// <summary>alvk_patch_install. The caller sets request.Size (AlvkInstallRequest.For does).</summary>
    public AlvkStatus PatchInstall(in AlvkInstallRequest request, out ulong handle)
    {
        handle = 0;
        AlvkInstallRequest copy = request;
        fixed (ulong* h = &handle)
            return _exports.PatchInstall(&copy, h);
    }

    /// <summary>alvk_patch_install with NULL arguments, to prove they are refused.</summary>
    internal AlvkStatus PatchInstallWithNulls(in AlvkInstallRequest request, bool nullRequest, bool nullHandle)
    {
        AlvkInstallRequest copy = request;
        ulong handle = 0;
        return _exports.PatchInstall(nullRequest ? null : &copy, nullHandle ? null : &handle);
    }

    /// <summary>alvk_patch_replace.</summary>
    public AlvkStatus PatchReplace(ulong handle, ulong owner, IntPtr replacement) =>
        _exports.PatchReplace(handle, owner, (ulong)replacement);

    /// <summary>alvk_patch_replace_with (ABI 3.4): the replacement named as a method too. The caller
    /// sets replacement.Size.</summary>
    public AlvkStatus PatchReplaceWith(ulong handle, ulong owner, in AlvkReplacement replacement)
    {
        AlvkReplacement copy = replacement;
        return _exports.PatchReplaceWith(handle, owner, &copy);
    }

    /// <summary>alvk_patch_replace_with with a NULL replacement, to prove it is refused.</summary>
    internal AlvkStatus PatchReplaceWithNull(ulong handle, ulong owner) => _exports.PatchReplaceWith(handle, owner, null);

    /// <summary>alvk_patch_remove.</summary>
    public AlvkStatus PatchRemove(ulong handle, ulong owner) => _exports.PatchRemove(handle, owner);

    /// <summary>alvk_patch_wait.</summary>
    public AlvkStatus PatchWait(ulong handle, uint timeoutMs) => _exports.PatchWait(handle, timeoutMs);

    /// <summary>alvk_last_command: the command this thread's latest queuing call issued (0: refused).
    /// Read it right after that call, on the same thread.</summary>
    public ulong LastCommand() => _exports.LastCommand();

    /// <summary>alvk_command_wait: waits for exactly one command; on Ok, `commandStatus` is its result.</summary>
    public AlvkStatus CommandWait(ulong command, uint timeoutMs, out AlvkStatus commandStatus)
    {
        AlvkStatus result = AlvkStatus.Ok;
        AlvkStatus rc = _exports.CommandWait(command, timeoutMs, &result);
        commandStatus = result;
        return rc;
    }

    /// <summary>alvk_patch_get_telemetry.</summary>
    public AlvkStatus PatchGetTelemetry(ulong handle, out AlvkPatchTelemetry telemetry) =>
        PatchGetTelemetry(handle, out telemetry, size: null);

    /// <summary>alvk_patch_get_telemetry; `size` overrides the struct's size field (tests).</summary>
    internal AlvkStatus PatchGetTelemetry(ulong handle, out AlvkPatchTelemetry telemetry, uint? size)
    {
        telemetry = default;
        telemetry.Size = size ?? (uint)sizeof(AlvkPatchTelemetry);
        fixed (AlvkPatchTelemetry* p = &telemetry)
            return _exports.PatchGetTelemetry(handle, p);
    }

    /// <summary>alvk_patch_get_telemetry with a NULL `out`, to prove it is refused.</summary>
    internal AlvkStatus PatchGetTelemetryWithNull(ulong handle) => _exports.PatchGetTelemetry(handle, null);
}
