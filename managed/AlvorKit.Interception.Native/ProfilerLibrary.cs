using System.Runtime.InteropServices;

namespace AlvorKit.Interception.Native;

/// <summary>Why the profiler cannot be used from this process.</summary>
public enum ProfilerUnavailableReason
{
    /// <summary>ALVORKIT_INTERCEPTION_PROFILER_PATH is not set.</summary>
    PathUnset,
    /// <summary>The file it names cannot be loaded.</summary>
    LibraryNotLoadable,
    /// <summary>The library lacks an export or implements another ABI major version.</summary>
    AbiMismatch,
    /// <summary>The library loaded, but it is not the instance CoreCLR initialized.</summary>
    NotAttached,
}

/// <summary>The profiler is not available; the message says which variable to set.</summary>
public sealed class ProfilerUnavailableException(ProfilerUnavailableReason reason, string message)
    : Exception(message)
{
    /// <summary>Which requirement is not met.</summary>
    public ProfilerUnavailableReason Reason { get; } = reason;
}

/// <summary>
/// The native profiler that CoreCLR loaded into this process, opened through
/// ALVORKIT_INTERCEPTION_PROFILER_PATH (the runtime already holds it, so this reaches the
/// very same instance).
/// </summary>
public sealed unsafe partial class ProfilerLibrary
{
    /// <summary>The variable that names the profiler library's absolute path.</summary>
    public const string PathVariable = "ALVORKIT_INTERCEPTION_PROFILER_PATH";
    /// <summary>The profiler's COM class id, the value of CORECLR_PROFILER.</summary>
    public const string ProfilerClsid = "{3840ACF7-5AF1-49EA-BF94-5F7086C57F57}";
    /// <summary>The ABI major version this binding implements; the library must match it.</summary>
    public const uint AbiMajor = AlvkConstants.AbiVersionMajor;
    /// <summary>The oldest ABI minor version this binding loads against: 3.8 has every export it
    /// binds, and a generation's relocations go to a 3.8 library in 3.8's layout
    /// (<see cref="TakesRelocationSites"/>). The binding was generated from
    /// <see cref="AlvkConstants.AbiVersionMinor"/>.</summary>
    public const uint AbiMinor = 8;

    private const string SetupHint =
        "Start the process with CORECLR_ENABLE_PROFILING=1, CORECLR_PROFILER=" + ProfilerClsid +
        ", CORECLR_PROFILER_PATH=<absolute library path>, " + PathVariable +
        "=<the same path> and ALVORKIT_INTERCEPTION_MODULES=<assemblies to patch>.";

    // Every export, bound through the binding generated from the header (Generated/Abi.g.cs).
    private readonly AlvkExports _exports;

    private ProfilerLibrary(string path, IntPtr handle)
    {
        Path = path;
        try
        {
            _exports = AlvkExports.Bind(handle);
        }
        catch (EntryPointNotFoundException e)
        {
            throw new ProfilerUnavailableException(ProfilerUnavailableReason.AbiMismatch,
                $"{path} lacks an export of ABI {AbiMajor} ({e.Message}); it is not this AlvorKit profiler.");
        }
    }

    /// <summary>The path the library was opened from.</summary>
    public string Path { get; }

    /// <summary>The packed ABI version the library reports.</summary>
    public uint VersionNumber => _exports.VersionNumber();

    /// <summary>The major part of a packed ABI version.</summary>
    public static uint MajorOf(uint version) => version >> 22;
    /// <summary>The minor part of a packed ABI version.</summary>
    public static uint MinorOf(uint version) => (version >> 12) & 0x3FF;
    /// <summary>The patch part of a packed ABI version.</summary>
    public static uint PatchOf(uint version) => version & 0xFFF;

    /// <summary>Opens the profiler CoreCLR loaded, or explains why it cannot.</summary>
    public static ProfilerLibrary Open()
    {
        string? path = Environment.GetEnvironmentVariable(PathVariable);
        if (string.IsNullOrEmpty(path))
            throw new ProfilerUnavailableException(ProfilerUnavailableReason.PathUnset,
                $"{PathVariable} is not set, so the AlvorKit profiler cannot be found. {SetupHint}");
        if (!NativeLibrary.TryLoad(path, out IntPtr handle))
            throw new ProfilerUnavailableException(ProfilerUnavailableReason.LibraryNotLoadable,
                $"{PathVariable}={path} cannot be loaded. {SetupHint}");
        var library = new ProfilerLibrary(path, handle);
        uint version = library.VersionNumber;
        if (MajorOf(version) != AbiMajor || MinorOf(version) < AbiMinor)
            throw new ProfilerUnavailableException(ProfilerUnavailableReason.AbiMismatch,
                $"{path} implements ABI {MajorOf(version)}.{MinorOf(version)}.{PatchOf(version)}; " +
                $"this binding needs {AbiMajor}.{AbiMinor} or a later minor version.");
        AlvkStatus status = library.GetRuntimeStatus(out _);
        if (status == AlvkStatus.NotAttached)
            throw new ProfilerUnavailableException(ProfilerUnavailableReason.NotAttached,
                $"{path} is not the profiler instance CoreCLR initialized in this process: " +
                $"{PathVariable} must name the same file as CORECLR_PROFILER_PATH. {SetupHint}");
        return library;
    }

    /// <summary>alvk_status_string: "ALVK_E_NAME: what it means".</summary>
    public string StatusString(AlvkStatus status) =>
        Marshal.PtrToStringUTF8((IntPtr)_exports.StatusString(status)) ?? status.ToString();

    /// <summary>alvk_status_name (ABI 3.2): the name alone, "ALVK_E_NAME".</summary>
    public string StatusName(AlvkStatus status) =>
        Marshal.PtrToStringUTF8((IntPtr)_exports.StatusName(status)) ?? status.ToString();

    /// <summary>The description alone: alvk_status_string without the name alvk_status_name gives.</summary>
    public string StatusDescription(AlvkStatus status)
    {
        string text = StatusString(status), name = StatusName(status);
        return text.StartsWith(name + ":", StringComparison.Ordinal) ? text[(name.Length + 1)..].Trim() : text;
    }

    /// <summary>alvk_get_runtime_status.</summary>
    public AlvkStatus GetRuntimeStatus(out AlvkRuntimeStatus status)
    {
        status = default;
        status.Size = (uint)sizeof(AlvkRuntimeStatus);
        fixed (AlvkRuntimeStatus* p = &status)
            return _exports.GetRuntimeStatus(p);
    }

    /// <summary>alvk_describe_method.</summary>
    public AlvkStatus DescribeMethod(Guid mvid, int methodToken, out AlvkMethodDescription description) =>
        DescribeMethod(mvid, methodToken, out description, size: null);

    /// <summary>alvk_describe_method; `size` overrides the struct's size field (tests).</summary>
    internal AlvkStatus DescribeMethod(Guid mvid, int methodToken, out AlvkMethodDescription description,
        uint? size)
    {
        description = default;
        description.Size = size ?? (uint)sizeof(AlvkMethodDescription);
        AlvkMvid id = AlvkMvid.From(mvid);
        fixed (AlvkMethodDescription* p = &description)
            return _exports.DescribeMethod(&id, unchecked((uint)methodToken), p);
    }

    /// <summary>alvk_module_identify: the loaded copy of module `mvid` in which the MethodDef
    /// `methodToken` (a non-generic method of a non-generic type) has the handle `methodHandle`
    /// (method.MethodHandle.Value), or with handle 0 the copy the MVID alone names.</summary>
    public AlvkStatus ModuleIdentify(Guid mvid, int methodToken, IntPtr methodHandle, out AlvkModuleInfo info)
    {
        info = default;
        info.Size = (uint)sizeof(AlvkModuleInfo);
        AlvkMvid id = AlvkMvid.From(mvid);
        fixed (AlvkModuleInfo* p = &info)
            return _exports.ModuleIdentify(&id, unchecked((uint)methodToken), (ulong)methodHandle, p);
    }

    /// <summary>alvk_describe_module_method: a method of the copy `moduleId` of load `moduleEpoch`
    /// (0: its live load).</summary>
    public AlvkStatus DescribeModuleMethod(ulong moduleId, uint moduleEpoch, int methodToken,
        out AlvkMethodDescription description)
    {
        description = default;
        description.Size = (uint)sizeof(AlvkMethodDescription);
        fixed (AlvkMethodDescription* p = &description)
            return _exports.DescribeModuleMethod(moduleId, moduleEpoch, unchecked((uint)methodToken), p);
    }

    /// <summary>alvk_describe_method with NULL arguments, to prove they are refused.</summary>
    internal AlvkStatus DescribeMethodWithNulls(bool nullMvid, bool nullOut)
    {
        AlvkMvid id = default;
        AlvkMethodDescription d = default;
        d.Size = (uint)sizeof(AlvkMethodDescription);
        return _exports.DescribeMethod(nullMvid ? null : &id, 0x06000001, nullOut ? null : &d);
    }
}
