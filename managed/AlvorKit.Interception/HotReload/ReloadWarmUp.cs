using System.Reflection;
using System.Reflection.Metadata;
using System.Runtime.CompilerServices;
using AlvorKit.Interception.Native;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// What the first update would otherwise pay for, done when the game starts watching a folder,
/// on the folder's queue (before any update): the code a reload runs is JIT-compiled
/// (<see cref="RuntimeHelpers.PrepareMethod(RuntimeMethodHandle)"/>: the reader of updates, the
/// translation, the side assembly's writer, the interceptor's commands and the profiler's
/// binding; generic code over the reload's own types is compiled at its first use), and each loaded
/// assembly that ALVORKIT_INTERCEPTION_MODULES names has its metadata indexed, as its first
/// update would index it, and is sent an update that is refused (its own metadata, which is not
/// a delta), so the way an update comes in has run once; the difference of two bodies that hold
/// every kind of operand is worked out, as a change's is, and a relocation table of a string built
/// and laid out for the validator, as for a body that names a new one; the patch registry's table
/// code that the first adoption runs is run on a table of its own. When the launcher's watch has
/// allowlisted AlvorKit's own rehearsal assembly, its one method is updated for real and the update
/// undone (<see cref="PatchRehearsal"/>, <see cref="RehearsalDelta"/>): the process's first update
/// and patch, a body naming a new string translated and its difference worked out, the profiler's
/// first batch and ReJIT request, the first adoption and commit. Nothing of the game is patched. (The launcher's
/// rehearsal, dropped next, then runs a whole update of the game up to the profiler's worker.)
/// </summary>
internal static class ReloadWarmUp
{
    // The reload's own code, the lowering of generations, the interceptor's commands and the
    // profiler's binding (not the hooks' weaving, which a reload does not run).
    private static readonly string[] Namespaces =
    [
        typeof(HotReloader).Namespace!,
        typeof(Plans.LoweredGeneration).Namespace!,
        typeof(Interceptor).Namespace!,
        typeof(Interceptor).Namespace + ".Internal",
        typeof(ProfilerLibrary).Namespace!,
    ];

    /// <returns>What the real patch of the rehearsal method saw; null when it did not run.</returns>
    public static RehearsedPatch? Run(HotReloader reloader, string patchableModules, Internal.NativeProfiler native)
    {
        // What a change's difference decodes, whatever the rehearsal's own body holds: every kind of operand
        // (constants of each width, branches, a switch, a local, tokens), two bodies that differ in one.
        _ = BodyDifference.Describe(EveryOperand(5), EveryOperand(6), token => "warm-up");
        // What a body that names a new string or member is translated through (its relocation table: two
        // operands of one string), whatever the rehearsal's own body names.
        var strings = new Plans.RelocationTable();
        for (uint site = 1; site <= 6; site += 5)
            strings.AtOperand(new Plans.RelocationRequest(RelocationKind.UserString, System.Text.Encoding.Unicode.GetBytes("warm-up"),
                                                          null, Plans.Parent.None, "warm-up"), site);
        _ = strings.Build(null);
        // What validating such a body lays out (its relocations as the library reads them), refused by
        // the validator: the generation has no owner and no body.
        _ = native.RehearseRelocationLayout();
        // What the first applied update's adoption runs on the patch registry's table, on a table of its own.
        Internal.PatchRegistry.Rehearse(typeof(ReloadWarmUp).GetMethod(nameof(Run), All)!);
        foreach (Type type in typeof(HotReloader).Assembly.GetTypes().Concat(typeof(ProfilerLibrary).Assembly.GetTypes()))
        {
            if (type.ContainsGenericParameters || !Namespaces.Contains(type.Namespace, StringComparer.Ordinal))
                continue;
            foreach (MethodBase method in type.GetMethods(All).Cast<MethodBase>().Concat(type.GetConstructors(All)))
                Prepare(method);
        }
        var names = new HashSet<string>(patchableModules.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries),
                                        StringComparer.OrdinalIgnoreCase);
        foreach (Assembly assembly in AppDomain.CurrentDomain.GetAssemblies())
        {
            // The rehearsal assembly's reloads are its own update's below, let go after it.
            if (assembly.IsDynamic || assembly.GetName().Name is not { } name || !names.Contains(name) ||
                string.Equals(name, PatchRehearsal.AssemblyName, StringComparison.OrdinalIgnoreCase))
                continue;
            reloader.Index(assembly.ManifestModule);
            // An update's way in, up to the reading of its metadata: the file format (its JSON
            // manifest), the asynchronous apply, the module's reloads, and a refusal, since the
            // module's own metadata is not a delta. Nothing changes.
            byte[] file = new ReloadDelta(name, assembly.ManifestModule.ModuleVersionId, OwnMetadata(assembly),
                                          ReadOnlyMemory<byte>.Empty, notices: [new ReloadNotice(ReloadNoticeKind.MetadataNotUpdated,
                                              name, "warm-up")]).ToArray();
            _ = reloader.ApplyUpdateAsync(ReloadDelta.Read(file)).GetAwaiter().GetResult();
        }
        // The process's first real update and patch, on AlvorKit's own rehearsal method (only a warm-up:
        // whatever goes wrong, the first update pays instead).
        if (PatchRehearsal.Target(names) is not { } target)
            return null;
        try
        {
            return reloader.RehearsePatch(target).AsTask().GetAwaiter().GetResult();
        }
        catch (Exception e) when (e is InterceptionException or InvalidOperationException or ArgumentException or
                                      BadImageFormatException or InvalidDataException)
        {
            return null;
        }
    }

    // nop; ldc.i4.s n; ldc.i4 1; ldc.i8 2; ldc.r4 3; ldc.r8 4; br.s +0; br +0; switch (1) +0; ldarg.s 0;
    // ldarg 1; ldstr; call; ldfld; ldtoken; ret.
    private static byte[] EveryOperand(byte n) =>
    [
        0x00, 0x1F, n, 0x20, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0, 0, 0x22, 0, 0, 0x40, 0x40,
        0x23, 0, 0, 0, 0, 0, 0, 0x10, 0x40, 0x2B, 0, 0x38, 0, 0, 0, 0, 0x45, 1, 0, 0, 0, 0, 0, 0, 0,
        0x0E, 0, 0xFE, 0x09, 1, 0, 0x72, 1, 0, 0, 0x70, 0x28, 1, 0, 0, 0x06, 0x7B, 1, 0, 0, 0x04,
        0xD0, 1, 0, 0, 0x02, 0x2A,
    ];

    private static unsafe byte[] OwnMetadata(Assembly assembly) =>
        assembly.TryGetRawMetadata(out byte* blob, out int length) ? new ReadOnlySpan<byte>(blob, length).ToArray() : [];

    private const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance |
                                     BindingFlags.Static | BindingFlags.DeclaredOnly;

    private static void Prepare(MethodBase method)
    {
        if (method.IsAbstract || method.ContainsGenericParameters ||
            (method.MethodImplementationFlags & (MethodImplAttributes.InternalCall | MethodImplAttributes.Runtime)) != 0 ||
            (method.Attributes & MethodAttributes.PinvokeImpl) != 0)
            return;
        try
        {
            RuntimeHelpers.PrepareMethod(method.MethodHandle);
        }
        catch (Exception e) when (e is ArgumentException or NotSupportedException or TypeLoadException or
                                      InvalidOperationException or BadImageFormatException)
        {
            // A method the runtime will not compile ahead of its call: its first call compiles it.
        }
    }
}
