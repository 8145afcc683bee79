; Four letters on the table; the speller builds "tea" (t on e on a).
(define (problem spell)
  (:domain towers)
  (:objects a e s t - block)
  (:init (ontable a) (ontable e) (ontable s) (ontable t)
         (clear a) (clear e) (clear s) (clear t) (handempty))
  (:goal (and (clear t) (on t e) (on e a) (ontable a))))
