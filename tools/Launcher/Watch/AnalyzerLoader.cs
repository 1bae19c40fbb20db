using System.Reflection;
using System.Runtime.Loader;
using Microsoft.CodeAnalysis;

namespace AlvorKit.Interception.Launcher.Watch;

/// <summary>
/// Loads the analyzer assemblies a project's compiler arguments name (source generators such as
/// System.Text.Json's and LibraryImport's), each into one load context of the watcher's, where
/// they bind to the watcher's own Microsoft.CodeAnalysis and find their dependencies next to them.
/// </summary>
internal sealed class AnalyzerLoader : IAnalyzerAssemblyLoader
{
    private readonly Context _context = new();

    public void AddDependencyLocation(string fullPath) => _context.Add(fullPath);

    public Assembly LoadFromPath(string fullPath)
    {
        _context.Add(fullPath);
        return _context.LoadFromAssemblyPath(fullPath);
    }

    private sealed class Context() : AssemblyLoadContext("alvorkit-watch analyzers")
    {
        private readonly Dictionary<string, string> _byName = new(StringComparer.OrdinalIgnoreCase);

        public void Add(string path)
        {
            lock (_byName)
                _byName.TryAdd(Path.GetFileNameWithoutExtension(path), path);
        }

        protected override Assembly? Load(AssemblyName name)
        {
            // The compiler's own assemblies (and whatever the watcher already has) come from the
            // default context, so the generators' types are the compiler's.
            foreach (Assembly loaded in Default.Assemblies)
            {
                if (string.Equals(loaded.GetName().Name, name.Name, StringComparison.OrdinalIgnoreCase))
                    return null;
            }
            if (name.Name is "Microsoft.CodeAnalysis" or "Microsoft.CodeAnalysis.CSharp")
                return null;
            string? path;
            lock (_byName)
                _byName.TryGetValue(name.Name ?? "", out path);
            return path is null ? null : LoadFromAssemblyPath(path);
        }
    }
}
