// Seed generator for the libFuzzer harnesses of tests/fuzz: reads real assemblies (the
// shared framework this runs on, plus any assemblies or directories named on the command
// line) with System.Reflection.Metadata and writes tests/fuzz/corpus/<harness>/.
//   dotnet run --project tests/fuzz/seedgen -c Release -- [--all] <corpus-dir> [assembly|dir ...]
// --all writes every distinct input instead of the bounded selection (not for the repo: it
// lets the harnesses run over everything the assemblies hold, with -runs=0).
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;

namespace AlvorKit.Fuzz.SeedGen;

internal static class Program
{
    private static int Main(string[] args)
    {
        bool everything = args.Length > 0 && args[0] == "--all";
        if (everything)
            args = args[1..];
        if (args.Length < 1)
        {
            Console.Error.WriteLine("usage: SeedGen [--all] <corpus-dir> [assembly|directory ...]");
            return 64;
        }
        var files = new SortedSet<string>(StringComparer.Ordinal);
        foreach (string source in args.Skip(1).Prepend(RuntimeEnvironment.GetRuntimeDirectory()))
        {
            if (Directory.Exists(source))
                files.UnionWith(Directory.GetFiles(source, "*.dll"));
            else if (File.Exists(source))
                files.Add(Path.GetFullPath(source));
            else
                Console.Error.WriteLine($"seedgen: {source} does not exist; skipped");
        }

        var corpora = new Corpora(everything);
        var names = new SortedSet<string>(StringComparer.Ordinal);
        var paths = new List<string>();
        int read = 0;
        foreach (string file in files)
        {
            using var stream = File.OpenRead(file);
            using var pe = new PEReader(stream);
            if (!pe.HasMetadata)
                continue;
            MetadataReader md = pe.GetMetadataReader();
            if (!md.IsAssembly)
                continue;
            ++read;
            names.Add(md.GetString(md.GetAssemblyDefinition().Name));
            paths.Add(file);
            Signatures.Collect(md, corpora);
            Bodies.Collect(pe, md, corpora);
            Generations.Collect(pe, md, corpora);
            Unicode.Collect(md, corpora);
        }
        Texts.Collect(names.ToList(), paths, corpora);
        Unicode.Edges(corpora);

        Console.WriteLine($"seedgen: {read} assemblies from {files.Count} files");
        foreach (Corpus corpus in corpora.All)
        {
            int written = corpus.Write(Path.Combine(args[0], corpus.Name));
            Console.WriteLine($"  {corpus.Name,-16} {written,4} of {corpus.CandidateCount,7} distinct candidates");
        }
        return 0;
    }
}
