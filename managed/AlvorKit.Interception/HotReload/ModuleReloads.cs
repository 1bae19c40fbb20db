using System.Collections.Immutable;
using System.Reflection;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.Loader;
using AlvorKit.Interception.Plans;

namespace AlvorKit.Interception.HotReload;

/// <summary>One changed method of a prepared reload: where its new body goes and what it is.</summary>
/// <param name="View">The view's MethodDef.</param>
/// <param name="Target">The method that gets the body (the loaded one, or its carrier in a side assembly).</param>
/// <param name="Lowered">The body as a generation of <paramref name="Target"/>.</param>
/// <param name="Member">The method as people write it.</param>
/// <param name="Difference">What changed from the body it runs now, readable.</param>
/// <param name="IsOriginal">The body is the loaded module's own again: after the batch, the patch is
/// removed and the original runs (a clean restore).</param>
internal sealed record PreparedBody(MethodDefinitionHandle View, MethodBase Target, LoweredGeneration Lowered, string Member,
                                    string? Difference, bool IsOriginal);

/// <summary>A delta read, laid out and translated, nothing applied yet.</summary>
internal sealed record PreparedReload(DeltaGeneration Delta, ReloadModule? Side, IReadOnlyList<PreparedBody> Bodies,
                                      IReadOnlyList<ReloadNotice> Notices);

/// <summary>
/// What the reloads of one loaded module copy keep between reloads — the view of its metadata
/// as the deltas grew it, where every definition lives, the side assemblies loaded so far —
/// and the preparation of one delta: read it as the next generation, build and load its side
/// assembly (when it adds anything), and translate every changed body for the module it goes
/// into. The loaded module's metadata is read once, in place, when the first delta comes.
/// </summary>
internal sealed class ModuleReloads
{
    private readonly List<ReloadModule> _sides = [];
    private readonly List<PEReader> _images = [];
    private int _serial;

    public ModuleReloads(Module module)
    {
        Module = module;
        Loaded = ReloadModule.Loaded(module);
        View = new MetadataView(Loaded.Reader!);
        Shapes = new ViewShapes(View);
        Placements = new PlacementMap(Loaded, View);
        Context = new ReloadContext(View, Shapes, Placements);
        Names = new ViewNames(Context);
    }

    public Module Module { get; }

    public ReloadModule Loaded { get; }

    public MetadataView View { get; }

    public ViewShapes Shapes { get; }

    public PlacementMap Placements { get; }

    public ReloadContext Context { get; }

    public ViewNames Names { get; }

    /// <summary>The side assemblies loaded so far (their code may be running).</summary>
    public IReadOnlyList<ReloadModule> Sides => _sides;

    /// <summary>Reads, lays out and translates <paramref name="delta"/>; nothing changes in the
    /// process but a side assembly loaded (unreferenced until the batch applies).</summary>
    /// <exception cref="DeltaRefusedException">It is refused; nothing was kept.</exception>
    public PreparedReload Prepare(ReloadDelta delta, Func<MethodBase, LoadedBody?> original)
    {
        DeltaGeneration generation = DeltaGeneration.Read(View, delta.Metadata, delta.IL);
        Internal.PhaseProbe.Mark("delta read");
        Shapes.Pending = generation;
        try
        {
            ReloadModule? side = ReloadModule.Side(Loaded.Name + Native.AlvkConstants.ReloadAssemblyInfix + (_serial + 1).ToString(System.Globalization.CultureInfo.InvariantCulture));
            var notices = new List<ReloadNotice>(delta.Notices);
            SideLayout layout = SideLayout.Plan(Context, side, h => Names.Member(h));
            notices.AddRange(layout.Notices);
            if (layout.IsEmpty)
                side = null;
            else
                LoadSide(layout, side);
            Internal.PhaseProbe.Mark("laid out");
            var bodies = new List<PreparedBody>();
            var restored = new HashSet<int>(delta.RestoredMethods);
            foreach (MethodDefinitionHandle method in generation.UpdatedMethods)
                bodies.Add(Translate(method, original, restored, delta.IsRehearsal));
            Internal.PhaseProbe.Mark("translated");
            return new PreparedReload(generation, side, bodies, notices);
        }
        catch
        {
            Discard();
            generation.Provider.Dispose();
            throw;
        }
    }

    /// <summary>The batch applied: the delta is the view's newest generation.</summary>
    public void Commit(PreparedReload reload)
    {
        View.Add(reload.Delta);
        Placements.Commit();
        if (reload.Side is { } side)
            _sides.Add(side);
        Shapes.Pending = null;
    }

    /// <summary>A rehearsal's commit: what <see cref="Commit"/> runs, on a fresh view of the loaded
    /// metadata and an empty placement map that nothing keeps, so that a real commit's code has run
    /// once before it; these reloads keep nothing of it (their view and placements are untouched).</summary>
    public void RehearseCommit(PreparedReload reload)
    {
        try
        {
            var view = new MetadataView(Loaded.Reader!);
            view.Add(reload.Delta);
            new PlacementMap(Loaded, view).Commit();
        }
        catch (Exception e) when (e is BadImageFormatException or ArgumentException or InvalidOperationException)
        {
            // A delta made against later generations than the loaded build's: the first commit pays.
        }
    }

    /// <summary>The reload was refused or failed: nothing of it is kept (a side assembly it loaded
    /// stays loaded, unreferenced).</summary>
    public void Discard()
    {
        Placements.Discard();
        Shapes.Pending = null;
    }

    private void LoadSide(SideLayout layout, ReloadModule side)
    {
        _serial++; // taken even if the load fails: a name is tried once
        byte[] image = SideAssemblyWriter.Write(Context, side, layout);
        AssemblyLoadContext context = AssemblyLoadContext.GetLoadContext(Module.Assembly) ?? AssemblyLoadContext.Default;
        Assembly assembly;
        try
        {
            assembly = context.LoadFromStream(new MemoryStream(image));
        }
        catch (Exception e) when (e is BadImageFormatException or FileLoadException)
        {
            throw new DeltaRefusedException(ReloadRefusalReason.SideAssemblyRefused,
                $"{ReloadRefusalReason.SideAssemblyRefused}: the runtime refused the assembly that carries the added " +
                $"members ({side.Name}): {e.Message}");
        }
        var pe = new PEReader(ImmutableArray.Create(image));
        _images.Add(pe);
        side.Loaded(assembly.ManifestModule, pe.GetMetadataReader());
        foreach (var (type, mirror) in layout.MirrorTokens)
            side.Mirrors[type] = mirror;
    }

    private PreparedBody Translate(MethodDefinitionHandle method, Func<MethodBase, LoadedBody?> original,
                                   HashSet<int> restored, bool rehearsal)
    {
        Placement placement = Placements.Of(method);
        string member = Names.Member(method);
        ReloadModule home = placement.Home;
        if (home.Module is null)
            throw new DeltaRefusedException(ReloadRefusalReason.NotADelta,
                $"{ReloadRefusalReason.NotADelta}: {member} — the delta gives a new body to a method it adds itself");
        if (placement.Kind is not (PlacementKind.Itself or PlacementKind.Extension))
            throw new DeltaRefusedException(ReloadRefusalReason.NotADelta,
                $"{ReloadRefusalReason.NotADelta}: {member} is not a method");
        MethodBase target = home.Module.ResolveMethod(placement.Token)
                            ?? throw new DeltaRefusedException(ReloadRefusalReason.NotADelta, $"{member} does not resolve");
        var loaded = new LoadedTarget(Context, home) { Member = member };
        RawBody body;
        try
        {
            RawBody source = BodyRewriter.Read(View, method, Shapes.Pending);
            bool nullCheck = placement is { Kind: PlacementKind.Extension, Instance: true } && !Shapes.IsValueType(placement.Declaring);
            body = BodyRewriter.Rewrite(source, loaded, nullCheck);
        }
        catch (BadImageFormatException e)
        {
            throw new DeltaRefusedException(ReloadRefusalReason.NotADelta,
                $"{ReloadRefusalReason.NotADelta}: {member} — its new body cannot be read: {e.Message}", member);
        }
        if (body.Bytes.Length > (int)Native.AlvkConstants.MaxGenerationBodyBytes)
            throw TooLarge(member, $"its body is {body.Bytes.Length} bytes; a generation takes at most " +
                                   $"{Native.AlvkConstants.MaxGenerationBodyBytes}");
        (List<RelocationSpec> specs, byte[] pool) = loaded.Table.Build(null);
        if (specs.Count > (int)Native.AlvkConstants.MaxRelocations)
            throw TooLarge(member, $"it needs {specs.Count} relocations; a generation carries at most " +
                                   $"{Native.AlvkConstants.MaxRelocations}");
        if (pool.Length > (int)Native.AlvkConstants.MaxGenerationBlobBytes)
            throw TooLarge(member, $"its new names and signatures take {pool.Length} bytes; a generation takes at most " +
                                   $"{Native.AlvkConstants.MaxGenerationBlobBytes}");
        var lowered = new LoweredGeneration(body.Bytes, pool, specs, [new ILMapSpec(0, 0, true)], body.MaxStack);
        // Back to the loaded body: the same bytes, or (said by the update's producer) the same
        // source bound the same way, whose new lambdas and state machines behave as the original's.
        bool isOriginal = home.IsBaseline && View.IsBaseline(method) &&
                          (restored.Contains(MetadataTokens.GetToken(method)) ||
                           (specs.Count == 0 && original(target) is { } o && o.Matches(body.Bytes, Module)));
        string? difference = isOriginal ? null : Names.Difference(method, Shapes.Pending!, original(target));
        // A rehearsal updates a method as itself: its difference is worked out all the same, as a
        // real change's is (the decoding of both bodies), and not kept.
        if (rehearsal && isOriginal)
            _ = Names.Difference(method, Shapes.Pending!, original(target));
        return new PreparedBody(method, target, lowered, member, difference, isOriginal);
    }

    private static DeltaRefusedException TooLarge(string member, string why) =>
        new(ReloadRefusalReason.TooLarge, $"{ReloadRefusalReason.TooLarge}: {member} — {why}", member);
}
