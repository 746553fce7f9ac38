// Package render draws the Mandelbrot set as a grayscale image, in several
// concurrency modes that all give the same pixels: the study is how the
// modes use the machine's processors, seen in an execution trace.
//
// The image is square and shows the region from -2 to 1 on the real axis
// and -1.5 to 1.5 on the imaginary one. A pixel is black when its point's
// orbit stays bounded for all the iterations asked for, and otherwise the
// lighter the sooner it escapes: white for a point that escapes at once.
//
// Every pixel is a function of its coordinates alone, computed by the same
// code in every mode, with explicit float64 conversions around products so
// that the compiler cannot fuse a multiply and an add into an FMA in one
// place and not another: the modes give bit-identical images.
package render

import (
	"fmt"
	"image"
	"math"
	"strings"
	"sync"
)

// Params say what to draw.
type Params struct {
	Size       int // width and height, in pixels
	Iterations int // the most iterations before a point counts as inside
}

// The region the image shows.
const (
	minReal = -2.0
	maxImag = 1.5
	extent  = 3.0
)

// Escape returns for how many iterations of z = z² + c, from z = c, |z|
// stays at most 2: 0 for a point outside the disc of radius 2, and
// iterations for a point that stays inside it throughout.
func Escape(cr, ci float64, iterations int) int {
	zr, zi := cr, ci
	for n := 0; n < iterations; n++ {
		zr2, zi2 := float64(zr*zr), float64(zi*zi)
		if zr2+zi2 > 4 {
			return n
		}
		zi = float64(2*zr*zi) + ci
		zr = zr2 - zi2 + cr
	}
	return iterations
}

// Point returns the point of the complex plane at the centre of pixel
// (x, y); y grows downwards.
func Point(p Params, x, y int) (cr, ci float64) {
	scale := extent / float64(p.Size)
	cr = minReal + float64((float64(x)+0.5)*scale)
	ci = maxImag - float64((float64(y)+0.5)*scale)
	return cr, ci
}

// Gray returns the gray level of pixel (x, y).
func Gray(p Params, x, y int) uint8 {
	cr, ci := Point(p, x, y)
	n := Escape(cr, ci, p.Iterations)
	if n >= p.Iterations {
		return 0
	}
	// A square root spreads the light grays of the many points that
	// escape early.
	return uint8(255 - math.Round(float64(255*math.Sqrt(float64(n)/float64(p.Iterations)))))
}

func newImage(p Params) *image.Gray {
	return image.NewGray(image.Rect(0, 0, p.Size, p.Size))
}

func drawRow(img *image.Gray, p Params, y int) {
	row := img.Pix[y*img.Stride : y*img.Stride+p.Size]
	for x := range row {
		row[x] = Gray(p, x, y)
	}
}

// Seq draws the image in the calling goroutine.
func Seq(p Params) *image.Gray {
	img := newImage(p)
	for y := 0; y < p.Size; y++ {
		drawRow(img, p, y)
	}
	return img
}

// Px draws each pixel in a goroutine of its own.
func Px(p Params) *image.Gray {
	img := newImage(p)
	var wg sync.WaitGroup
	wg.Add(p.Size * p.Size)
	for y := 0; y < p.Size; y++ {
		for x := 0; x < p.Size; x++ {
			go func() {
				img.Pix[y*img.Stride+x] = Gray(p, x, y)
				wg.Done()
			}()
		}
	}
	wg.Wait()
	return img
}

// Row draws each row in a goroutine of its own.
func Row(p Params) *image.Gray {
	img := newImage(p)
	var wg sync.WaitGroup
	wg.Add(p.Size)
	for y := 0; y < p.Size; y++ {
		go func() {
			drawRow(img, p, y)
			wg.Done()
		}()
	}
	wg.Wait()
	return img
}

// Workers draws the image with workers goroutines, which take the rows one
// at a time from an unbuffered channel: each row handed over waits for a
// worker to be ready for it.
func Workers(p Params, workers int) *image.Gray {
	return drawByWorkers(p, workers, make(chan int))
}

// WorkersBuffered is Workers with a channel that holds every row, so that
// all the rows are queued at once and no send waits for a worker.
func WorkersBuffered(p Params, workers int) *image.Gray {
	return drawByWorkers(p, workers, make(chan int, p.Size))
}

func drawByWorkers(p Params, workers int, rows chan int) *image.Gray {
	img := newImage(p)
	var wg sync.WaitGroup
	wg.Add(workers)
	for i := 0; i < workers; i++ {
		go func() {
			for y := range rows {
				drawRow(img, p, y)
			}
			wg.Done()
		}()
	}
	for y := 0; y < p.Size; y++ {
		rows <- y
	}
	close(rows)
	wg.Wait()
	return img
}

// A Mode is one way of spreading the work over goroutines.
type Mode struct {
	Name string
	Doc  string
	// Draw draws the image; modes with a fixed number of goroutines use
	// workers of them.
	Draw func(p Params, workers int) *image.Gray
}

// Modes are all the modes, simplest first.
var Modes = []Mode{
	{"seq", "one goroutine", func(p Params, _ int) *image.Gray { return Seq(p) }},
	{"px", "one goroutine per pixel", func(p Params, _ int) *image.Gray { return Px(p) }},
	{"row", "one goroutine per row", func(p Params, _ int) *image.Gray { return Row(p) }},
	{"workers", "worker goroutines fed rows through an unbuffered channel", Workers},
	{"workers-buffered", "worker goroutines fed rows through a channel that holds them all", WorkersBuffered},
}

// Lookup returns the mode called name.
func Lookup(name string) (Mode, error) {
	for _, m := range Modes {
		if m.Name == name {
			return m, nil
		}
	}
	return Mode{}, fmt.Errorf("unknown mode %q; the modes are %s", name, ModeNames())
}

// ModeNames lists the names of the modes, separated by commas.
func ModeNames() string {
	names := make([]string, len(Modes))
	for i, m := range Modes {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}
