using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using AlvorKit.Interception.HotReload;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Emit;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>One emitted update, not yet known to be applied.</summary>
/// <param name="Delta">What goes to the game.</param>
/// <param name="Next">The baseline the following update is emitted against, once this one applied.</param>
/// <param name="Methods">How many method bodies it updates.</param>
internal sealed record EmittedUpdate(ReloadDelta Delta, EmitBaseline Next, int Methods);

/// <summary>
/// The compiler's Edit and Continue state against the build the game loaded: the baseline is
/// read from that build (its metadata, and each method's locals signature), and every update is
/// the compiler's own delta of the members a save changed (<c>Compilation.EmitDifference</c>),
/// emitted against the last update the game applied: the compiler numbers its generations, adds
/// the rows of each delta after the previous one's, and names what it synthesizes (lambdas,
/// closures, state machines) so that a generation never reuses an earlier one's name.
/// </summary>
internal sealed class EditSession
{
    private readonly BaselineMatch _original;
    private EmitBaseline _baseline;

    private EditSession(BaselineMatch original, EmitBaseline baseline, string assemblyName, Guid mvid)
    {
        _original = original;
        _baseline = baseline;
        AssemblyName = assemblyName;
        ModuleVersionId = mvid;
    }

    public string AssemblyName { get; }

    /// <summary>The MVID of the build the game loaded.</summary>
    public Guid ModuleVersionId { get; }

    /// <summary>How many updates the game applied.</summary>
    public int Generation { get; private set; }

    /// <summary>A session against <paramref name="builtImage"/> (the build the game loaded), whose
    /// sources make <paramref name="compilation"/>.</summary>
    public static EditSession Start(Compilation compilation, byte[] builtImage, string assemblyName)
    {
        var image = new PEReader(ImmutableArray.Create(builtImage));
        MetadataReader reader = image.GetMetadataReader();
        Guid mvid = reader.GetGuid(reader.GetModuleDefinition().Mvid);
        ModuleMetadata module = ModuleMetadata.CreateFromImage(builtImage);
        EmitBaseline baseline = EmitBaseline.CreateInitialBaseline(compilation, module,
            // A Release build has no Edit and Continue debug information: what the compiler
            // synthesized in a changed method is synthesized anew in the delta.
            debugInformationProvider: _ => default,
            localSignatureProvider: handle => LocalsOf(image, reader, handle),
            hasPortableDebugInformation: true);
        return new EditSession(new BaselineMatch(compilation, image), baseline, assemblyName, mvid);
    }

    private static StandaloneSignatureHandle LocalsOf(PEReader image, MetadataReader reader, MethodDefinitionHandle method)
    {
        int rva = reader.GetMethodDefinition(method).RelativeVirtualAddress;
        return rva == 0 ? default : image.GetMethodBody(rva).LocalSignature;
    }

    /// <summary>The delta of <paramref name="plan"/>'s edits in <paramref name="compilation"/>, or
    /// the compiler's errors.</summary>
    public (EmittedUpdate? Update, IReadOnlyList<string> Errors) Emit(Compilation compilation, EditPlan plan,
        IReadOnlyList<string> changedFiles, CancellationToken cancellationToken)
    {
        using var metadata = new MemoryStream();
        using var il = new MemoryStream();
        using var pdb = new MemoryStream();
        // A member added to a generic type is named through its instantiation (a MemberRef),
        // which the runtime's own Edit and Continue cannot resolve and the compiler refuses for
        // it; here the reload redirects that reference to the member's carrier, so the compiler
        // is told the member is not new where it checks references.
        EmitDifferenceResult result = compilation.EmitDifference(_baseline, plan.Edits,
            s => plan.Added.Contains(s) && s.ContainingType is not { IsGenericType: true }, metadata, il, pdb, cancellationToken);
        string[] errors = [.. result.Diagnostics.Where(d => d.Severity == DiagnosticSeverity.Error).Select(d => d.ToString())];
        if (!result.Success || result.Baseline is null)
            return (null, errors.Length > 0 ? errors : ["error: the compiler emitted no update"]);
        // The methods back to the build's own: the game puts their originals back.
        int[] restored = [.. plan.Edits
            .Where(e => e.Kind == SemanticEditKind.Update && e.NewSymbol is IMethodSymbol)
            .Select(e => _original.Token(compilation, (IMethodSymbol)e.NewSymbol!, cancellationToken))
            .Where(token => token != 0)];
        var delta = new ReloadDelta(AssemblyName, ModuleVersionId, metadata.ToArray(), il.ToArray(), pdb.ToArray(),
                                    plan.Notices, changedFiles)
        { RestoredMethods = restored };
        return (new EmittedUpdate(delta, result.Baseline, result.UpdatedMethods.Length), errors);
    }

    /// <summary>The baseline the next update is emitted against.</summary>
    public EmitBaseline Baseline => _baseline;

    /// <summary>The game applied <paramref name="update"/>: the next is emitted against it.</summary>
    public void Commit(EmittedUpdate update)
    {
        _baseline = update.Next;
        Generation++;
    }

    /// <summary>The game runs an earlier state (<see cref="UpdateHistory"/>): the next update is
    /// emitted against <paramref name="baseline"/>, generation <paramref name="generation"/>.</summary>
    public void Reset(EmitBaseline baseline, int generation)
    {
        _baseline = baseline;
        Generation = generation;
    }
}
