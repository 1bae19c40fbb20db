// The seed corpus of every harness, by the name of its directory under tests/fuzz/corpus
// (the harness tests/fuzz/fuzz_<name>.c), with its bounds (count, bytes per input); with
// `everything`, every distinct input instead, to check the harnesses against all of them.
namespace AlvorKit.Fuzz.SeedGen;

internal sealed class Corpora(bool everything)
{
    public Corpus SigCompressed { get; } = new("sig_compressed", 120, 256, everything);
    public Corpus SigType { get; } = new("sig_type", 250, 512, everything);
    public Corpus SigMethod { get; } = new("sig_method", 250, 512, everything);
    public Corpus SigField { get; } = new("sig_field", 200, 512, everything);
    public Corpus SigLocals { get; } = new("sig_locals", 200, 512, everything);
    public Corpus SigTypeSpec { get; } = new("sig_type_spec", 200, 512, everything);
    public Corpus SigMethodSpec { get; } = new("sig_method_spec", 150, 512, everything);
    public Corpus SigMemberRef { get; } = new("sig_member_ref", 200, 512, everything);
    public Corpus SigStandalone { get; } = new("sig_standalone", 200, 512, everything);
    public Corpus MethodBody { get; } = new("method_body", 250, 4096, everything);
    public Corpus IlWalk { get; } = new("il_walk", 250, 4096, everything);
    public Corpus Dispatch { get; } = new("dispatch", 200, 1024, everything);
    public Corpus Generation { get; } = new("generation", 250, 4096, everything);
    public Corpus Allowlist { get; } = new("allowlist", 120, 4096, everything);
    public Corpus Config { get; } = new("config", 100, 4096, everything);
    public Corpus Sha256 { get; } = new("sha256", 60, 4096, everything);
    public Corpus Utf { get; } = new("utf", 120, 1024, everything);

    public IEnumerable<Corpus> All =>
    [
        SigCompressed, SigType, SigMethod, SigField, SigLocals, SigTypeSpec, SigMethodSpec,
        SigMemberRef, SigStandalone, MethodBody, IlWalk, Dispatch, Generation, Allowlist, Config,
        Sha256, Utf,
    ];
}
