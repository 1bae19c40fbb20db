using System.Reflection;
using AlvorKit.Interception.IL;

namespace AlvorKit.Interception.HotReload;

/// <summary>
/// A loaded method's original body as the runtime reports it (MethodBase.GetMethodBody): its
/// code, locals signature, init-locals flag and exception clauses. A reload's body that is the
/// same code, locals and clauses is the original again: the reload removes its patch instead
/// of keeping a copy, and the original runs everywhere (its own code, inlined again).
/// </summary>
internal sealed class LoadedBody
{
    private readonly MethodBody _body;

    private LoadedBody(MethodBody body, byte[] code)
    {
        _body = body;
        Code = code;
    }

    /// <summary>The code (without header or clauses).</summary>
    public byte[] Code { get; }

    /// <summary>The original body of <paramref name="method"/>, if it has one.</summary>
    public static LoadedBody? Of(MethodBase method)
    {
        try
        {
            return method.GetMethodBody() is { } body && body.GetILAsByteArray() is { } code ? new LoadedBody(body, code) : null;
        }
        catch (Exception e) when (e is BadImageFormatException or TypeLoadException or FileNotFoundException or InvalidOperationException)
        {
            return null;
        }
    }

    /// <summary>Whether the raw body <paramref name="raw"/> (tokens of <paramref name="module"/>)
    /// is this one.</summary>
    public bool Matches(byte[] raw, Module module)
    {
        BodyHeader header = MethodBodyFormat.Header(raw);
        if (!raw.AsSpan(header.CodeStart, header.CodeSize).SequenceEqual(Code))
            return false;
        if (header.LocalsToken != _body.LocalSignatureMetadataToken || header.InitLocals != _body.InitLocals)
            return false;
        IList<ExceptionHandlingClause> expected = _body.ExceptionHandlingClauses;
        List<EhClause> clauses = MethodBodyFormat.Clauses(raw, header);
        if (clauses.Count != expected.Count)
            return false;
        for (int i = 0; i < clauses.Count; i++)
        {
            EhClause c = clauses[i];
            ExceptionHandlingClause e = expected[i];
            if ((int)c.Flags != (int)e.Flags || c.TryOffset != e.TryOffset || c.TryLength != e.TryLength ||
                c.HandlerOffset != e.HandlerOffset || c.HandlerLength != e.HandlerLength)
                return false;
            if (e.Flags == ExceptionHandlingClauseOptions.Filter && c.ClassToken != e.FilterOffset)
                return false;
            if (e.Flags == ExceptionHandlingClauseOptions.Clause && !SameType(module, c.ClassToken, e.CatchType))
                return false;
        }
        return true;
    }

    private static bool SameType(Module module, int token, Type? expected)
    {
        try
        {
            return module.ResolveType(token) == expected;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}
