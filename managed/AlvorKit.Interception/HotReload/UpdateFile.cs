using Microsoft.Win32.SafeHandles;

namespace AlvorKit.Interception.HotReload;

/// <summary>A dropped file that is not one the watch reads: a link, not a regular file, or too
/// large. The message says which.</summary>
internal sealed class UnsafeUpdateFileException(string message) : IOException(message);

/// <summary>
/// Reads one dropped update, whole and once, without trusting what is at its name: a link is
/// refused, not followed (O_NOFOLLOW; a reparse point on Windows); anything but a regular file
/// (a FIFO, a device, a socket, a folder) is refused without being opened for reading, and a
/// FIFO opened by a race does not block (O_NONBLOCK); a file larger than the limit is refused
/// before a byte is read, and one that grows past what it said while it is read is refused.
/// </summary>
internal static class UpdateFile
{
    /// <summary>Whether anything is at <paramref name="path"/>, a link to nothing included.</summary>
    public static bool Exists(string path) =>
        OperatingSystem.IsWindows()
            ? Path.Exists(path) || new FileInfo(path).LinkTarget is not null
            : PosixFiles.LinkStatus(path) is not null;

    public static byte[] Read(string path, int maxBytes)
    {
        using SafeFileHandle file = OperatingSystem.IsWindows() ? OpenWindows(path) : OpenPosix(path);
        long length = OperatingSystem.IsWindows() ? RandomAccess.GetLength(file) : PosixFiles.Status(file).Size;
        if (length > maxBytes)
            throw new UnsafeUpdateFileException($"{path} has {length} bytes, more than the {maxBytes} an update may have " +
                                                "(HotReloader.WatchFolder's maxUpdateBytes)");
        byte[] bytes = new byte[length];
        int read = 0;
        while (read < bytes.Length)
        {
            int n = RandomAccess.Read(file, bytes.AsSpan(read), read);
            if (n == 0)
                throw new IOException($"{path} became shorter while it was read");
            read += n;
        }
        Span<byte> more = stackalloc byte[1];
        if (RandomAccess.Read(file, more, read) != 0)
            throw new IOException($"{path} grew while it was read");
        return bytes;
    }

    private static SafeFileHandle OpenPosix(string path)
    {
        PosixStatus status = PosixFiles.LinkStatus(path) ?? throw new FileNotFoundException($"{path} is gone", path);
        if (status.IsLink)
            throw new UnsafeUpdateFileException($"{path} is a symbolic link; the watch reads regular files only");
        if (!status.IsRegular)
            throw new UnsafeUpdateFileException($"{path} is not a regular file (a FIFO, device, socket or folder); " +
                                                "the watch reads regular files only");
        SafeFileHandle file = PosixFiles.OpenForReadNoFollow(path);
        if (!PosixFiles.Status(file).IsRegular)
        {
            file.Dispose();
            throw new UnsafeUpdateFileException($"{path} was replaced by something other than a regular file");
        }
        return file;
    }

    private static SafeFileHandle OpenWindows(string path)
    {
        FileAttributes attributes = File.GetAttributes(path); // of a link itself, not its target
        if ((attributes & (FileAttributes.ReparsePoint | FileAttributes.Directory | FileAttributes.Device)) != 0)
            throw new UnsafeUpdateFileException($"{path} is a link, a folder or a device ({attributes}); " +
                                                "the watch reads regular files only");
        return File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read);
    }
}
