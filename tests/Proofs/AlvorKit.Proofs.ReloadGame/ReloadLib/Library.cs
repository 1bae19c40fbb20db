namespace ReloadLib;

/// <summary>Loaded by the game, never allowlisted.</summary>
public static class Library
{
    public static string Tag() => "lib-1";
}
